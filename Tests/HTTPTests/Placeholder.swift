// HTTPTests
