"""The HTTP routes, a module per HTTP function, each with its ``router``: :mod:`.bets`,
:mod:`.decisions`, :mod:`.tables`, :mod:`.wallets` and :mod:`.queries` (read-only). A function
imports only its own module, so it loads only the services its routes call."""
