// Tiny DOM builders: h() for HTML elements, s() for SVG. No framework, no build step.
//
// props: "class", "text", "style" (object), "onX" (event listener), properties that must be set as
// DOM properties (value, checked, disabled, hidden, selected, indeterminate), and any other key as
// an attribute (true -> "", false/null/undefined -> omitted). Children may be nested arrays,
// strings, numbers or nodes; null/false/undefined are skipped.

const SVG_NS = 'http://www.w3.org/2000/svg';
const PROPS = new Set(['value', 'checked', 'disabled', 'hidden', 'selected', 'indeterminate']);

export function h(tag, props, ...children) {
  return build(document.createElement(tag), props, children);
}

export function s(tag, props, ...children) {
  return build(document.createElementNS(SVG_NS, tag), props, children);
}

function build(el, props, children) {
  if (props) {
    for (const [key, value] of Object.entries(props)) setProp(el, key, value);
  }
  append(el, children);
  return el;
}

function setProp(el, key, value) {
  if (value === undefined || value === null) return;
  if (key.startsWith('on') && typeof value === 'function') {
    el.addEventListener(key.slice(2).toLowerCase(), value);
  } else if (key === 'text') {
    el.textContent = String(value);
  } else if (key === 'style' && typeof value === 'object') {
    for (const [name, v] of Object.entries(value)) {
      if (name.startsWith('--')) el.style.setProperty(name, v);
      else el.style[name] = v;
    }
  } else if (PROPS.has(key) && !(el instanceof SVGElement)) {
    el[key] = value;
  } else if (value === false) {
    // omitted
  } else {
    el.setAttribute(key, value === true ? '' : String(value));
  }
}

export function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace el's children, keeping keyboard focus (and a text field's caret) on the "same" element. */
export function replaceKeepingFocus(root, ...children) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.getAttribute('data-focus') : null;
  let caret = null;
  if (key && typeof active.selectionStart === 'number') {
    try { caret = [active.selectionStart, active.selectionEnd]; } catch { caret = null; }
  }
  root.replaceChildren();
  append(root, children);
  if (!key) return;
  const again = root.querySelector(`[data-focus="${cssEscape(key)}"]`);
  if (!again) return;
  again.focus({ preventScroll: true });
  if (caret) {
    try { again.setSelectionRange(caret[0], caret[1]); } catch { /* not a text field */ }
  }
}

export function cssEscape(value) {
  return window.CSS && CSS.escape ? CSS.escape(value) : String(value).replace(/["\\]/g, '\\$&');
}

/**
 * Update `root` (showing one screen) to `fresh` by regions: when both are the same screen
 * (data-screen) with the same regions (data-region, not nested), only regions whose data-sig
 * changed are rebuilt, so an open <select> or a half-typed field elsewhere is left alone.
 * Returns false when the screens differ: the caller replaces everything.
 */
export function patchRegions(root, fresh) {
  const old = root.firstElementChild;
  if (!old || root.childElementCount !== 1) return false;
  const key = fresh.getAttribute('data-screen');
  if (!key || old.getAttribute('data-screen') !== key) return false;
  const before = [...old.querySelectorAll('[data-region]')];
  const after = [...fresh.querySelectorAll('[data-region]')];
  if (before.length !== after.length) return false;
  for (let i = 0; i < before.length; i += 1) {
    if (before[i].getAttribute('data-region') !== after[i].getAttribute('data-region')) return false;
  }
  for (let i = 0; i < before.length; i += 1) {
    const sig = after[i].getAttribute('data-sig');
    if (before[i].getAttribute('data-sig') === sig) continue;
    replaceKeepingFocus(before[i], [...after[i].childNodes]);
    before[i].setAttribute('data-sig', sig);
    before[i].setAttribute('class', after[i].getAttribute('class') || '');
  }
  return true;
}
