// Module API.
