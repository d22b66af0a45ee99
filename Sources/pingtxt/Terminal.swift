#if canImport(Glibc)
import Glibc
#endif

/// Reads a secret from the terminal with echo off.
enum Terminal {
    static func readSecret(prompt: String) -> String? {
        _ = prompt.withCString { write(2, $0, strlen($0)) }
        var old = termios()
        let haveTerm = tcgetattr(0, &old) == 0
        if haveTerm {
            var quiet = old
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSANOW, &quiet)
        }
        defer {
            if haveTerm { tcsetattr(0, TCSANOW, &old) }
            _ = write(2, "\n", 1)
        }
        return readLine(strippingNewline: true)
    }
}
