// localStorage, guarded: private modes and full disks must not break the game.

const PLAYER_KEY = 'gaple.player';
const LANG_KEY = 'gaple.lang';

function read(key) {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    /* storage unavailable: the session still works, it just is not remembered */
  }
}

/** {name, token, player_id} — token and player_id may be null (a name typed but no guest yet). */
export function loadPlayer() {
  try {
    const data = JSON.parse(read(PLAYER_KEY) || 'null');
    if (!data || typeof data !== 'object') return null;
    return {
      name: typeof data.name === 'string' ? data.name : '',
      token: typeof data.token === 'string' ? data.token : null,
      player_id: typeof data.player_id === 'string' ? data.player_id : null,
    };
  } catch {
    return null;
  }
}

export function savePlayer(player) {
  write(PLAYER_KEY, player ? JSON.stringify(player) : null);
}

export function loadLang() {
  return read(LANG_KEY);
}

export function saveLang(lang) {
  write(LANG_KEY, lang);
}

const MUTED_KEY = 'gaple.muted';

/** The player ids whose table talk this browser hides (chat.js). */
export function loadMuted() {
  try {
    const data = JSON.parse(read(MUTED_KEY) || '[]');
    return Array.isArray(data) ? data.filter((x) => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export function saveMuted(ids) {
  write(MUTED_KEY, ids.length ? JSON.stringify(ids) : null);
}

const SOUND_KEY = 'gaple.sound';

/** Turn sounds (alerts.js): on unless this browser turned them off. */
export function loadSoundOn() {
  return read(SOUND_KEY) !== 'off';
}

export function saveSoundOn(on) {
  write(SOUND_KEY, on ? null : 'off');
}
