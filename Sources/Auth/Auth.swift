// Module Auth.
