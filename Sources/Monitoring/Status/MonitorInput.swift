/// An input to the state machine.
public enum MonitorInput: Sendable, Equatable {
    case result(CheckResult)
    case pause(at: Int64)
    case resume(at: Int64)
}
