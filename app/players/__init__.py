"""Players who come back: accounts on top of guests, login sessions, ratings and profiles."""
