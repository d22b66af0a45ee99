// Module Crypto.
