// AuthTests
