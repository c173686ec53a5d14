// A few line icons as inline SVG (no icon font, no emoji: they render the same everywhere).

import { s } from './dom.js';

const PATHS = {
  eye: ['M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z', 'M12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6z'],
  bot: ['M12 3v3', 'M5 8h14a2 2 0 0 1 2 2v7a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2z', 'M9 13h.01', 'M15 13h.01', 'M9 16.5h6'],
  star: ['M12 3l2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1L3.2 9.5l6.1-.9z'],
  clock: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z', 'M12 7v5l3 2'],
  door: ['M4 21h16', 'M6 21V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v17', 'M14 12h.01'],
  play: ['M7 4.5v15l12-7.5z'],
  sound: ['M4 9h4l5-4v14l-5-4H4z', 'M16.5 8.5a5 5 0 0 1 0 7', 'M19 6a8.5 8.5 0 0 1 0 12'],
  muted: ['M4 9h4l5-4v14l-5-4H4z', 'M17 9l5 6', 'M22 9l-5 6'],
  flag: ['M5 21V4', 'M5 4h11l-2 4 2 4H5'],
  bell: ['M6 16V11a6 6 0 0 1 12 0v5l2 2H4z', 'M10 20a2 2 0 0 0 4 0'],
  users: ['M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8z', 'M2 21c0-3.9 3.1-7 7-7s7 3.1 7 7', 'M16 3.5a4 4 0 0 1 0 7', 'M18 14.3c2.4.9 4 3.3 4 6.7'],
  flag: ['M5 21V4', 'M5 4h11l-2 4 2 4H5'],
  block: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z', 'M5.6 5.6l12.8 12.8'],
  more: ['M5 12h.01', 'M12 12h.01', 'M19 12h.01'],
  close: ['M6 6l12 12', 'M18 6L6 18'],
  home: ['M3 11l9-7 9 7', 'M5 9.5V20h14V9.5', 'M10 20v-5h4v5'],
  trophy: ['M8 4h8v5a4 4 0 0 1-8 0z', 'M8 6H4v1a4 4 0 0 0 4 4', 'M16 6h4v1a4 4 0 0 1-4 4', 'M12 13v4', 'M8 20h8', 'M10 17h4v3h-4z'],
};

export function icon(name, className = '') {
  return s('svg', {
    class: `icon icon-${name} ${className}`.trim(),
    viewBox: '0 0 24 24',
    width: '1em',
    height: '1em',
    fill: 'none',
    stroke: 'currentColor',
    'stroke-width': '2',
    'stroke-linecap': 'round',
    'stroke-linejoin': 'round',
    'aria-hidden': 'true',
    focusable: 'false',
  }, (PATHS[name] || []).map((d) => s('path', { d })));
}
