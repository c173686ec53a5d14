// A tap is a press and a release on one control. Views are drawn anew from state, so a redraw
// between the two (a bot's move, a chat line, a presence change) replaces the control, and the
// browser then sends the click nowhere: the tap is lost. While a control is pressed, redraws wait
// for its click, and at most HOLD_MS (a long press is not a tap).

const CONTROLS = 'button, a[href], [role="button"], input, select, label, summary';
export const HOLD_MS = 800;
// A release with no click after it (the finger slid off): redraw once the browser had its chance.
const NO_CLICK_MS = 150;

/** `draw`, held while a control is pressed; a held redraw runs once, right after the tap. */
export function holdWhilePressed(draw, doc = document) {
  let pressed = false;
  let held = false;
  let timer = null;
  const release = () => {
    clearTimeout(timer);
    timer = null;
    pressed = false;
    if (held) {
      held = false;
      draw();
    }
  };
  const releaseIn = (ms) => {
    clearTimeout(timer);
    timer = setTimeout(release, ms);
  };
  doc.addEventListener('pointerdown', (e) => {
    if (!(e.target instanceof Element) || !e.target.closest(CONTROLS)) return;
    pressed = true;
    releaseIn(HOLD_MS);
  }, true);
  doc.addEventListener('pointerup', () => { if (pressed) releaseIn(NO_CLICK_MS); }, true);
  doc.addEventListener('pointercancel', () => { if (pressed) releaseIn(0); }, true);
  // Capture: before the control's own handler, so what the click itself changes is drawn at once;
  // a redraw held for the press follows the whole click.
  doc.addEventListener('click', () => {
    if (!pressed) return;
    pressed = false;
    releaseIn(0);
  }, true);
  return () => {
    if (pressed) {
      held = true;
      return;
    }
    held = false;
    draw();
  };
}
