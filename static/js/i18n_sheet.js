// The strings of the score sheet, the set's standings and the name field's limit, in both
// languages. i18n.js merges them into its dictionaries (a separate file keeps those edits small).

export const id = {
  'name.count': '{n}/{max} huruf',
  'name.too_long': 'Nama terlalu panjang: {n} huruf, paling banyak {max}. Pendekkan dulu.',

  'sheet.open': 'Skor',
  'sheet.open.aria': 'Buka lembar skor set ini',
  'sheet.title': 'Lembar skor',
  'sheet.close': 'Tutup',
  'sheet.deal': 'Deal',
  'sheet.result': 'Hasil',
  'sheet.total': 'Total',
  'sheet.empty': 'Belum ada deal yang selesai.',
  'sheet.team_points': '+{n} tim',
  'sheet.team_note': 'Di Ganda poin masuk ke tim: kalau kawanmu keluar, kamu juga dapat.',
  'sheet.penalty_note': 'Hitungan masing-masing: yang paling sedikit menang.',

  'standing.title': 'Peringkat',
  'standing.won': 'Kamu menang!',
  'standing.place': 'Kamu peringkat {place}',
  'standing.tied': '(seri)',
  'standing.points': '{n} poin',
  'ordinal.1': 'ke-1',
  'ordinal.2': 'ke-2',
  'ordinal.3': 'ke-3',
  'ordinal.4': 'ke-4',
  'ordinal.5': 'ke-5',
};

export const en = {
  'name.count': '{n}/{max} characters',
  'name.too_long': 'Name too long: {n} characters, at most {max}. Please shorten it.',

  'sheet.open': 'Scores',
  'sheet.open.aria': "Open this set's score sheet",
  'sheet.title': 'Score sheet',
  'sheet.close': 'Close',
  'sheet.deal': 'Deal',
  'sheet.result': 'Result',
  'sheet.total': 'Total',
  'sheet.empty': 'No deal has finished yet.',
  'sheet.team_points': '+{n} team',
  'sheet.team_note': 'In Ganda points go to the team: when your partner goes out, you score too.',
  'sheet.penalty_note': "Each player's count: the fewest wins.",

  'standing.title': 'Standings',
  'standing.won': 'You won!',
  'standing.place': 'You placed {place}',
  'standing.tied': '(tied)',
  'standing.points': '{n} points',
  'ordinal.1': '1st',
  'ordinal.2': '2nd',
  'ordinal.3': '3rd',
  'ordinal.4': '4th',
  'ordinal.5': '5th',
};
