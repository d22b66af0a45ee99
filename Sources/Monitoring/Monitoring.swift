// Module Monitoring (in progress).
