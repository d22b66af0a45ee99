// DNSTests (in progress).
