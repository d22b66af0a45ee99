// Module Net (in progress).
