// MonitoringTests (in progress).
