"""Tournaments: the pure logic of organized play (docs/TOURNAMENTS.md).

``formats`` holds the records and the scoring, ``standings`` ranks entrants from stored results,
``grouping`` seats entrants at tables (the one search both formats use), ``swiss`` pairs a Swiss
round and ``knockout`` draws pools and runs the bracket. No I/O, no clock, no global randomness:
a seeded ``random.Random`` is an input where chance is wanted.
"""
