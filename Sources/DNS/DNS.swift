// Module DNS (in progress).
