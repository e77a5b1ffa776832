"""One module per `partition-planner` subcommand: its flags, and the call into the model."""
