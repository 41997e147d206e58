"""Config files: scenarios and game configs, the bot's config, TOML reading with errors that name the
file, line and fix, and where the shipped data folders are."""
