// libFuzzer harness for the HTTP request parser.
