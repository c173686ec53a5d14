// Every UI string lives here, in Bahasa Indonesia and English.
// The game's own words (Domi, Ceki, Balak, Kandang, Tunggal, Ganda) are the same in both
// dictionaries on purpose: that is how players say them.

import { loadLang, saveLang } from './storage.js';

const id = {
  'app.name': 'Gaple Online',
  'app.tagline': 'Domino Gaple aturan PORDI 2025',
  'skip': 'Lompat ke isi',
  'lang.toggle': 'EN',
  'lang.toggle.aria': 'Switch to English',
  'nav.lobby': 'Lobi',

  'name.label': 'Nama kamu',
  'name.placeholder': 'mis. Budi',
  'name.save': 'Simpan',
  'name.playing_as': 'Main sebagai',
  'name.change': 'Ganti nama',
  'name.required': 'Isi namamu dulu.',
  'name.hint': 'Nama ini dilihat pemain lain di meja.',

  'create.title': 'Buat meja',
  'create.preset': 'Aturan',
  'create.preset.pordi': 'PORDI 2025',
  'create.mode': 'Mode',
  'mode.tunggal': 'Tunggal',
  'mode.ganda': 'Ganda',
  'mode.tunggal.hint': 'masing-masing',
  'mode.ganda.hint': '2 lawan 2',
  'create.timer': 'Waktu per giliran',
  'create.deals': 'Deal per set',
  'create.target': 'Target poin',
  'create.public': 'Meja umum (tampil di lobi)',
  'create.submit': 'Buat meja',
  'seconds': '{n} dtk',

  'tables.title': 'Meja umum',
  'tables.empty': 'Belum ada meja umum. Buat satu!',
  'tables.loading': 'Memuat meja…',
  'tables.error': 'Daftar meja tidak bisa dimuat.',
  'tables.host': 'Meja {name}',
  'tables.seats': '{n}/4 kursi',
  'tables.watchers': '{n} menonton',
  'tables.deals': '{n} deal',
  'tables.target': 'target {n}',
  'tables.join': 'Duduk',
  'tables.watch': 'Tonton',
  'status.open': 'Menunggu',
  'status.playing': 'Bermain',
  'status.finished': 'Selesai',

  'join.title': 'Masuk dengan kode',
  'join.label': 'Kode meja',
  'join.placeholder': 'mis. K7QX2M',
  'join.submit': 'Masuk',
  'join.bad_code': 'Kode meja terdiri dari huruf dan angka.',

  'room.code': 'Kode meja',
  'room.share': 'Tautan undangan',
  'room.copy': 'Salin',
  'room.copied': 'Tautan tersalin!',
  'room.seats': 'Kursi',
  'room.settings': 'Pengaturan meja',
  'room.settings.save': 'Simpan pengaturan',
  'room.settings.saved': 'Pengaturan disimpan.',
  'room.start': 'Mulai main',
  'room.need_seats': 'Isi keempat kursi untuk mulai ({n}/4).',
  'room.waiting_host': 'Menunggu tuan rumah memulai…',
  'room.not_found': 'Meja {code} tidak ditemukan.',
  'room.loading': 'Membuka meja…',
  'room.team': 'Tim {t}',
  'room.summary': '{mode} · {timer} · {length}',
  'room.host_is': 'Tuan rumah: {name}',
  'room.sit_prompt': 'Tulis namamu untuk duduk.',
  'room.finished': 'Set sudah selesai.',

  'seat.n': 'Kursi {n}',
  'seat.empty': 'Kosong',
  'seat.sit': 'Duduk di sini',
  'seat.move': 'Pindah ke sini',
  'seat.bot': '+ Bot',
  'seat.bot.aria': 'Tambah bot di kursi {n}',
  'seat.remove_bot': 'Keluarkan bot',
  'seat.leave': 'Berdiri',
  'seat.you': 'Kamu',
  'seat.host': 'Tuan rumah',
  'seat.bot_badge': 'Bot',
  'seat.partner': 'Kawan',
  'seat.online': 'terhubung',
  'seat.offline': 'tidak terhubung',
  'seat.tiles': '{n} kartu',
  'seat.score': '{n} poin',

  'table.deal': 'Deal {n}',
  'table.deal_of': 'Deal {n}/{total}',
  'table.additional': 'Game Tambahan',
  'table.target': 'Target {n}',
  'table.turn.you': 'Giliranmu!',
  'table.turn.other': 'Giliran {name}',
  'table.your_hand': 'Kartu kamu',
  'table.line': 'Kartu di meja',
  'table.line.empty': 'Menunggu kartu pembuka…',
  'table.ends': 'Ujung terbuka: {l} dan {r}',
  'table.leave': 'Tinggalkan kursi',
  'table.leave.confirm': 'Bot akan menggantikanmu di kursi ini. Yakin?',
  'table.spectating': 'Menonton',
  'table.scores': 'Skor',
  'table.show_result': 'Lihat hasil',
  'table.waiting_deal': 'Menunggu deal dimulai…',
  'table.no_moves': 'Tidak ada kartu yang cocok.',
  'table.pending': 'Mengirim…',

  'tile.aria': 'kartu {a}-{b}',
  'tile.playable': 'bisa dimainkan',
  'tile.back': 'kartu tertutup',
  'pass': 'Lewat',
  'auto': 'Otomatis',

  'end.choose': 'Taruh {tile} di ujung mana?',
  'end.left': 'Kiri',
  'end.right': 'Kanan',
  'end.aria': 'Ujung {side} ({n})',
  'end.aria.points': 'Ujung {side} ({n}), {p} poin jika Domi',
  'end.points': '+{p}',
  'end.cancel': 'Batal',

  'result.title': 'Hasil deal {n}',
  'result.biasa': 'Domi biasa',
  'result.balak': 'Domi Balak',
  'result.ceki': 'Ceki',
  'result.ceki_habis': 'Ceki Habis',
  'result.ceki_balak': 'Ceki Balak',
  'result.ceki_palang': 'Ceki Palang',
  'result.kandang': 'Kandang',
  'result.desc.biasa': 'Kartu terakhir habis.',
  'result.desc.balak': 'Keluar dengan balak.',
  'result.desc.ceki': 'Kartu terakhir menyambung kedua ujung.',
  'result.desc.ceki_habis': 'Ceki, dan kedua angkanya sudah habis.',
  'result.desc.ceki_balak': 'Balak terakhir di kedua ujung yang sama.',
  'result.desc.ceki_palang': 'Balak terakhir, dan angkanya sudah habis.',
  'result.desc.kandang': 'Meja terkunci — mata kartu dihitung.',
  'result.went_out': '{name} keluar dengan {tile}',
  'result.locked': '{name} mengunci meja dengan {tile}',
  'result.winner': 'Pemenang deal: {name}',
  'result.player': 'Pemain',
  'result.hand': 'Sisa kartu',
  'result.pips': 'Mata',
  'result.points': 'Poin',
  'result.total': 'Total',
  'result.next_deal': 'Deal berikutnya segera dimulai…',
  'result.close': 'Tutup',
  'result.empty_hand': 'habis',

  'set.title': 'Set selesai',
  'set.winner': 'Pemenang set: {names}',
  'set.team_winner': 'Tim pemenang: {names}',
  'set.next': 'Set berikutnya',
  'set.waiting': 'Menunggu tuan rumah memulai set berikutnya…',
  'set.deals': '{n} deal dimainkan',
  'and': ' & ',

  'conn.connecting': 'Menyambung ke meja…',
  'conn.lost': 'Koneksi terputus. Menyambung ulang dalam {s} dtk…',
  'conn.reconnecting': 'Koneksi terputus. Menyambung ulang…',
  'conn.retry': 'Coba sekarang',
  'conn.replaced': 'Meja ini dibuka di tab atau perangkat lain.',
  'conn.reconnect': 'Sambungkan di sini',
  'conn.offline': 'Perangkat sedang offline.',

  'announce.played': '{name} memainkan {tile}',
  'announce.passed': '{name} lewat',
  'announce.your_turn': 'Giliranmu. {n} kartu bisa dimainkan.',
  'announce.auto': 'Waktu habis: {tile} dimainkan otomatis untuk {name}',
  'announce.deal_started': 'Deal {n} dimulai',

  'err.network': 'Server tidak bisa dihubungi. Coba lagi.',
  'err.generic': 'Terjadi kesalahan: {message}',
  'err.seat_taken': 'Kursi itu sudah terisi.',
  'err.not_host': 'Hanya tuan rumah yang bisa melakukannya.',
  'err.seats_not_filled': 'Keempat kursi harus terisi dulu.',
  'err.room_not_found': 'Meja tidak ditemukan.',
  'err.room_not_open': 'Meja sudah mulai bermain.',
  'err.room_started': 'Pengaturan tidak bisa diubah setelah mulai.',
  'err.too_many_rooms': 'Kamu sudah membuat terlalu banyak meja.',
  'err.not_your_turn': 'Belum giliranmu.',
  'err.tile_does_not_fit': 'Kartu itu tidak cocok.',
  'err.end_required': 'Pilih ujung untuk kartu itu.',
  'err.must_open_with_6_6': 'Deal pertama dibuka dengan 6-6.',
  'err.rate_limited': 'Terlalu cepat — tunggu sebentar.',
  'err.bad_token': 'Sesi kamu tidak berlaku lagi; masukkan nama lagi.',
  'err.unauthorized': 'Sesi kamu tidak berlaku lagi; masukkan nama lagi.',
  'err.invalid': 'Isian tidak valid: {message}',
  'err.set_in_progress': 'Set masih berjalan.',
  'err.not_playing': 'Tidak ada deal yang sedang berjalan.',
  'err.clipboard': 'Tidak bisa menyalin; salin tautannya secara manual.',
};

const en = {
  'app.name': 'Gaple Online',
  'app.tagline': 'Gaple dominoes, PORDI 2025 rules',
  'skip': 'Skip to content',
  'lang.toggle': 'ID',
  'lang.toggle.aria': 'Ganti ke Bahasa Indonesia',
  'nav.lobby': 'Lobby',

  'name.label': 'Your name',
  'name.placeholder': 'e.g. Budi',
  'name.save': 'Save',
  'name.playing_as': 'Playing as',
  'name.change': 'Change name',
  'name.required': 'Enter your name first.',
  'name.hint': 'Other players see this name at the table.',

  'create.title': 'Create a table',
  'create.preset': 'Rules',
  'create.preset.pordi': 'PORDI 2025',
  'create.mode': 'Mode',
  'mode.tunggal': 'Tunggal',
  'mode.ganda': 'Ganda',
  'mode.tunggal.hint': 'every player alone',
  'mode.ganda.hint': '2 vs 2',
  'create.timer': 'Time per turn',
  'create.deals': 'Deals per set',
  'create.target': 'Target points',
  'create.public': 'Public table (listed in the lobby)',
  'create.submit': 'Create table',
  'seconds': '{n} s',

  'tables.title': 'Public tables',
  'tables.empty': 'No public tables yet. Create one!',
  'tables.loading': 'Loading tables…',
  'tables.error': 'Could not load the tables.',
  'tables.host': "{name}'s table",
  'tables.seats': '{n}/4 seats',
  'tables.watchers': '{n} watching',
  'tables.deals': '{n} deals',
  'tables.target': 'to {n}',
  'tables.join': 'Sit',
  'tables.watch': 'Watch',
  'status.open': 'Waiting',
  'status.playing': 'Playing',
  'status.finished': 'Finished',

  'join.title': 'Join with a code',
  'join.label': 'Table code',
  'join.placeholder': 'e.g. K7QX2M',
  'join.submit': 'Go',
  'join.bad_code': 'A table code is letters and digits.',

  'room.code': 'Table code',
  'room.share': 'Invite link',
  'room.copy': 'Copy',
  'room.copied': 'Link copied!',
  'room.seats': 'Seats',
  'room.settings': 'Table settings',
  'room.settings.save': 'Save settings',
  'room.settings.saved': 'Settings saved.',
  'room.start': 'Start',
  'room.need_seats': 'Fill all four seats to start ({n}/4).',
  'room.waiting_host': 'Waiting for the host to start…',
  'room.not_found': 'No table with code {code}.',
  'room.loading': 'Opening the table…',
  'room.team': 'Team {t}',
  'room.summary': '{mode} · {timer} · {length}',
  'room.host_is': 'Host: {name}',
  'room.sit_prompt': 'Enter your name to take a seat.',
  'room.finished': 'The set is over.',

  'seat.n': 'Seat {n}',
  'seat.empty': 'Empty',
  'seat.sit': 'Sit here',
  'seat.move': 'Move here',
  'seat.bot': '+ Bot',
  'seat.bot.aria': 'Seat a bot in seat {n}',
  'seat.remove_bot': 'Remove bot',
  'seat.leave': 'Stand up',
  'seat.you': 'You',
  'seat.host': 'Host',
  'seat.bot_badge': 'Bot',
  'seat.partner': 'Partner',
  'seat.online': 'connected',
  'seat.offline': 'not connected',
  'seat.tiles': '{n} tiles',
  'seat.score': '{n} points',

  'table.deal': 'Deal {n}',
  'table.deal_of': 'Deal {n}/{total}',
  'table.additional': 'Additional game',
  'table.target': 'Target {n}',
  'table.turn.you': 'Your turn!',
  'table.turn.other': "{name}'s turn",
  'table.your_hand': 'Your tiles',
  'table.line': 'Tiles on the table',
  'table.line.empty': 'Waiting for the opening tile…',
  'table.ends': 'Open ends: {l} and {r}',
  'table.leave': 'Leave seat',
  'table.leave.confirm': 'A bot will take over your seat. Are you sure?',
  'table.spectating': 'Watching',
  'table.scores': 'Scores',
  'table.show_result': 'Show result',
  'table.waiting_deal': 'Waiting for the deal to start…',
  'table.no_moves': 'No tile fits.',
  'table.pending': 'Sending…',

  'tile.aria': 'tile {a}-{b}',
  'tile.playable': 'playable',
  'tile.back': 'face-down tile',
  'pass': 'Pass',
  'auto': 'Auto',

  'end.choose': 'Which end for {tile}?',
  'end.left': 'Left',
  'end.right': 'Right',
  'end.aria': '{side} end ({n})',
  'end.aria.points': '{side} end ({n}), {p} points if it is Domi',
  'end.points': '+{p}',
  'end.cancel': 'Cancel',

  'result.title': 'Deal {n} result',
  'result.biasa': 'Domi biasa',
  'result.balak': 'Domi Balak',
  'result.ceki': 'Ceki',
  'result.ceki_habis': 'Ceki Habis',
  'result.ceki_balak': 'Ceki Balak',
  'result.ceki_palang': 'Ceki Palang',
  'result.kandang': 'Kandang',
  'result.desc.biasa': 'Played the last tile.',
  'result.desc.balak': 'Went out with a balak.',
  'result.desc.ceki': 'The last tile joined both ends.',
  'result.desc.ceki_habis': 'Ceki, with both numbers used up.',
  'result.desc.ceki_balak': 'The last balak, on two equal ends.',
  'result.desc.ceki_palang': 'The last balak, its number used up.',
  'result.desc.kandang': 'The board is locked — pips are counted.',
  'result.went_out': '{name} went out with {tile}',
  'result.locked': '{name} locked the board with {tile}',
  'result.winner': 'Deal won by {name}',
  'result.player': 'Player',
  'result.hand': 'Tiles left',
  'result.pips': 'Pips',
  'result.points': 'Points',
  'result.total': 'Total',
  'result.next_deal': 'The next deal starts shortly…',
  'result.close': 'Close',
  'result.empty_hand': 'none',

  'set.title': 'Set over',
  'set.winner': 'Set won by {names}',
  'set.team_winner': 'Winning team: {names}',
  'set.next': 'Next set',
  'set.waiting': 'Waiting for the host to start the next set…',
  'set.deals': '{n} deals played',
  'and': ' & ',

  'conn.connecting': 'Connecting to the table…',
  'conn.lost': 'Connection lost. Reconnecting in {s} s…',
  'conn.reconnecting': 'Connection lost. Reconnecting…',
  'conn.retry': 'Retry now',
  'conn.replaced': 'This table was opened in another tab or device.',
  'conn.reconnect': 'Use it here',
  'conn.offline': 'This device is offline.',

  'announce.played': '{name} played {tile}',
  'announce.passed': '{name} passes',
  'announce.your_turn': 'Your turn. {n} tiles can be played.',
  'announce.auto': "Time's up: {tile} auto-played for {name}",
  'announce.deal_started': 'Deal {n} started',

  'err.network': 'Cannot reach the server. Try again.',
  'err.generic': 'Something went wrong: {message}',
  'err.seat_taken': 'That seat is taken.',
  'err.not_host': 'Only the host can do that.',
  'err.seats_not_filled': 'All four seats must be filled first.',
  'err.room_not_found': 'Table not found.',
  'err.room_not_open': 'The table has already started.',
  'err.room_started': 'Settings cannot change after the start.',
  'err.too_many_rooms': 'You already host too many tables.',
  'err.not_your_turn': 'It is not your turn.',
  'err.tile_does_not_fit': 'That tile does not fit.',
  'err.end_required': 'Choose an end for that tile.',
  'err.must_open_with_6_6': 'The first deal opens with 6-6.',
  'err.rate_limited': 'Too fast — wait a moment.',
  'err.bad_token': 'Your session expired; enter your name again.',
  'err.unauthorized': 'Your session expired; enter your name again.',
  'err.invalid': 'Invalid input: {message}',
  'err.set_in_progress': 'The set is still in progress.',
  'err.not_playing': 'No deal is in progress.',
  'err.clipboard': 'Could not copy; copy the link by hand.',
};

export const DICTIONARIES = { id, en };
export const LANGS = ['id', 'en'];

let current = pickInitial();
const listeners = new Set();

function pickInitial() {
  const saved = loadLang();
  if (saved && DICTIONARIES[saved]) return saved;
  const nav = (typeof navigator !== 'undefined' && (navigator.language || '')) || '';
  return nav.toLowerCase().startsWith('id') ? 'id' : 'en';
}

export function lang() {
  return current;
}

export function setLang(next) {
  if (!DICTIONARIES[next] || next === current) return;
  current = next;
  saveLang(next);
  document.documentElement.lang = next;
  for (const fn of listeners) fn(next);
}

export function toggleLang() {
  setLang(current === 'id' ? 'en' : 'id');
}

export function onLangChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The string for key in the current language, with {name} placeholders filled from vars. */
export function t(key, vars) {
  const dict = DICTIONARIES[current];
  let text = dict[key] ?? DICTIONARIES.en[key] ?? key;
  if (vars) {
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
  }
  return text;
}

/** Whether a translation exists (used for server error codes). */
export function has(key) {
  return key in DICTIONARIES[current];
}
