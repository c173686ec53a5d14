// The strings of the deal analysis on the replay page (deal_analysis.js).

export const id = {
  'analysis.title': 'Analisis',
  'analysis.computing': 'Analisis sedang dihitung…',
  'analysis.unavailable': 'Analisis tidak tersedia.',
  'analysis.not_solved': 'Langkah ini belum terpecahkan.',
  'analysis.best_open': 'Terbaik dengan semua kartu terbuka: {moves}',
  'analysis.best_known': 'terbaik dengan yang kamu tahu: {move}',
  'analysis.moves': 'Langkah-langkah',
  'analysis.graph': 'Nilai deal per langkah',
  'analysis.discard': 'dibuang',
  'analysis.mistakes': 'Kesalahan terbesarmu',
  'analysis.no_mistakes': 'Tidak ada kesalahan: semua langkahmu terbaik.',
  'analysis.mistake_line': 'Langkah {n}: {move} (terbaik {best}) {loss}',
  'analysis.mark.best': 'terbaik',
  'analysis.mark.inaccuracy': 'kurang tepat',
  'analysis.mark.mistake': 'kesalahan',
  'analysis.mark.blunder': 'blunder',
};

export const en = {
  'analysis.title': 'Analysis',
  'analysis.computing': 'The analysis is being computed…',
  'analysis.unavailable': 'No analysis available.',
  'analysis.not_solved': 'This move was not solved.',
  'analysis.best_open': 'Best with all hands open: {moves}',
  'analysis.best_known': 'best with what you knew: {move}',
  'analysis.moves': 'Moves',
  'analysis.graph': 'The deal\'s value move by move',
  'analysis.discard': 'discarded',
  'analysis.mistakes': 'Your biggest mistakes',
  'analysis.no_mistakes': 'No mistakes: every move of yours was best.',
  'analysis.mistake_line': 'Move {n}: {move} (best {best}) {loss}',
  'analysis.mark.best': 'best',
  'analysis.mark.inaccuracy': 'inaccuracy',
  'analysis.mark.mistake': 'mistake',
  'analysis.mark.blunder': 'blunder',
};
