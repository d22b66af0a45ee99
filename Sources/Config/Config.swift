// Module Config.
