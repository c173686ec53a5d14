// Practice against bots (POST /api/practice): one tap to a private, unrated table with bots in
// every other seat and the set already started. The card sits in the lobby and on the rules page
// (there with the game and the bots' level to choose); rulesLink() leads to /aturan.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { state, changed, toast } from '../store.js';
import * as api from '../api.js';
import { loadPlayer } from '../storage.js';
import { getCatalogue, choicesOf, fieldOf } from '../presets.js';
import { modeLabel } from './common.js';
import { errorText } from '../errors.js';

export const RULES_PATH = '/aturan';

// The player's choices on the rules page; null: the server's defaults.
const choice = { game: null, bot: null };

/** Go to a path inside the app (main.js routes on popstate). */
export function go(path) {
  window.history.pushState({}, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** The games a practice table can be: PORDI in each mode, Klasik as each of its three games. */
export function practiceGames() {
  const games = choicesOf('pordi', 'mode').map((mode) => ({
    id: `pordi-${mode}`, body: { preset: 'pordi', mode }, label: `${t('create.preset.pordi')} ${modeLabel(mode)}`,
  }));
  const stuck = fieldOf('klasik', 'stuck');
  for (const kind of (stuck && stuck.choices) || []) {
    games.push({ id: `klasik-${kind}`, body: { preset: 'klasik', stuck: kind }, label: t(`stuck.${kind}`) });
  }
  return games;
}

function practiceDefaults() {
  const cat = getCatalogue();
  return { bot: (cat && cat.practice && cat.practice.bot) || null, kinds: (cat && cat.bots && cat.bots.kinds) || [] };
}

/** The body of POST /api/practice for the current choices ({} in the lobby: the defaults). */
export function practiceBody(withChoices) {
  if (!withChoices) return {};
  const game = practiceGames().find((g) => g.id === choice.game);
  const body = game ? { ...game.body } : {};
  if (choice.bot) body.bot = choice.bot;
  return body;
}

async function startPractice(act, withChoices) {
  if (state.lobby.quickBusy) return;
  if (!(await act.saveName())) return;
  state.lobby.quickBusy = true;
  changed();
  try {
    const { room } = await api.practice(practiceBody(withChoices));
    state.player = loadPlayer();
    go(`/r/${room.code}`);
  } catch (err) {
    toast(errorText(err.code, err.message, err.field), 'error');
  } finally {
    state.lobby.quickBusy = false;
    changed();
  }
}

function choiceField(key, label, options, current, onPick) {
  return h('fieldset', { class: 'field' },
    h('legend', { class: 'field-label' }, label),
    h('div', { class: `segmented practice-seg cols-${Math.min(options.length, 3)}` }, options.map((o) => h('label', { class: `seg${current === o.id ? ' on' : ''}` },
      h('input', {
        type: 'radio',
        name: `practice-${key}`,
        value: o.id,
        checked: current === o.id,
        'data-testid': `practice-${key}-${o.id}`,
        'data-focus': `practice-${key}-${o.id}`,
        onChange: () => onPick(o.id),
      }),
      h('span', { class: 'seg-title' }, o.label)))));
}

/**
 * The practice card. `choose`: offer the game and the bots' level (the rules page); without it
 * one tap plays the default game against the default bots (the lobby).
 */
export function practiceCard(st, act, { choose = false } = {}) {
  const ready = st.presets === 'ready';
  const busy = st.lobby.quickBusy;
  let fields = null;
  if (choose && ready) {
    const games = practiceGames();
    const { bot, kinds } = practiceDefaults();
    if (!choice.game && games.length) choice.game = games[0].id;
    if (!choice.bot) choice.bot = bot;
    const redraw = () => changed();
    fields = [
      choiceField('game', t('practice.game'), games, choice.game, (id) => { choice.game = id; redraw(); }),
      choiceField('bot', t('practice.bot'), kinds.map((k) => ({ id: k, label: t(`practice.bot.${k}`) })), choice.bot,
        (id) => { choice.bot = id; redraw(); }),
    ];
  }
  // On the rules page the section's own heading names the card.
  return h(choose ? 'div' : 'section', { class: 'card practice-card', 'data-testid': 'practice', 'aria-labelledby': choose ? null : 'practice-title' },
    choose ? null : h('h2', { id: 'practice-title' }, t('practice.title')),
    h('p', { class: 'muted small' }, t('practice.hint')),
    fields,
    h('button', {
      type: 'button',
      class: `btn ${choose ? 'btn-gold btn-large' : 'btn-primary'} btn-block`,
      'data-testid': 'practice-submit',
      'data-focus': 'practice-submit',
      disabled: busy || !ready,
      onClick: () => startPractice(act, choose),
    }, busy ? t('practice.busy') : t('practice.submit')),
    choose ? null : h('p', { class: 'practice-rules' }, rulesLink()));
}

/** A link to the rules page; `newTab` keeps a table open behind it. */
export function rulesLink({ newTab = false, className = '' } = {}) {
  return h('a', {
    class: `rules-link ${className}`.trim(),
    href: RULES_PATH,
    'data-testid': 'rules-link',
    target: newTab ? '_blank' : null,
    rel: newTab ? 'noopener' : null,
    onClick: newTab ? null : (e) => {
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      go(RULES_PATH);
    },
  }, t('rules.link'));
}
