// The pingtxt executable.
