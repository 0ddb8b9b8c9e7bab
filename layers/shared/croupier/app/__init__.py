"""The serverless application's shared code: configuration, DynamoDB access, wallets, the round
service and the HTTP plumbing. Handlers in ``functions/`` stay thin and call into here; the game
rules stay in :mod:`croupier.games`."""
