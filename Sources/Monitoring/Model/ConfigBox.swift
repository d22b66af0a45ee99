/// A monitor's configuration behind one reference. The registry keeps each
/// monitor's this way, and a heartbeat ping carries it through the queue,
/// its group and its completion across threads: each copy of a bare
/// `MonitorConfig` retains every string and array in it, a box is one
/// retain.
final class ConfigBox: Sendable {
    let value: MonitorConfig
    init(_ value: MonitorConfig) { self.value = value }
}
