// The strings of quick play's waiting and "play again", in both languages. i18n.js merges them
// into its dictionaries.

export const id = {
  'quick.wait.title': 'Mencari pemain',
  'quick.wait.bots_in': 'Bot mengisi kursi kosong dalam {n} detik.',
  'quick.wait.bots_now': 'Bot mengisi kursi kosong sekarang…',
  'quick.wait.joined': 'Sudah duduk',
  'quick.wait.empty': 'Kursi kosong',
  'quick.start_now': 'Mulai sekarang dengan bot',
  'quick.again': 'Main lagi',
  'quick.leave': 'Keluar',
  'quick.again.title': 'Main lagi di meja ini?',
  'quick.again.note': 'Set baru mulai kalau semua pemain memilih "Main lagi". Yang tidak memilih diganti bot.',
  'quick.again.bots_in': 'Set berikutnya mulai dengan bot dalam {n} detik.',
  'quick.again.ready': 'Mau main lagi',
  'quick.again.choosing': 'Belum memilih',
  'seat.former': 'Pemain yang sudah pergi',
  'err.not_quickplay': 'Ini bukan meja main cepat.',
  'err.not_seated': 'Kamu tidak duduk di meja ini.',
  'err.not_playing': 'Belum ada set yang dimainkan di meja ini.',
};

export const en = {
  'quick.wait.title': 'Finding players',
  'quick.wait.bots_in': 'Bots take the empty seats in {n} s.',
  'quick.wait.bots_now': 'Bots are taking the empty seats…',
  'quick.wait.joined': 'Seated',
  'quick.wait.empty': 'Empty seat',
  'quick.start_now': 'Start now with bots',
  'quick.again': 'Play again',
  'quick.leave': 'Leave',
  'quick.again.title': 'Play again at this table?',
  'quick.again.note': 'A new set starts once every player chooses "Play again". Bots take the seats of those who do not.',
  'quick.again.bots_in': 'The next set starts with bots in {n} s.',
  'quick.again.ready': 'Plays again',
  'quick.again.choosing': 'Still choosing',
  'seat.former': 'A player who left',
  'err.not_quickplay': 'This is not a quick-play table.',
  'err.not_seated': 'You have no seat at this table.',
  'err.not_playing': 'No set has been played at this table yet.',
};
