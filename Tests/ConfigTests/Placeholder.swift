// ConfigTests
