import API
import Auth
import CShims
import Config
import Core
import HTTP
import Mail
import Monitoring
import Net
import Notify
import Store
#if canImport(Glibc)
import Glibc
#endif

/// `pingtxt serve`: open the database, make sure there is a way in (first
/// admin), start the HTTP server, then wait for SIGTERM/SIGINT and stop
/// gracefully.
enum ServeCommand {
    static func run(_ args: Arguments) throws -> Int32 {
        try args.allow(["config", "log-format", "log-level"])
        let config = try CLI.loadConfigAndLogging(args)

        // Before any thread starts, so every thread inherits the mask and
        // only sigwait below sees these signals.
        pt_block_signals()
        pt_ignore_sigpipe()

        let db = try CLI.openDatabase(config, retryFor: 30)
        // One hub per SQLite file; several hubs may share a PostgreSQL database.
        var lock: Int32 = -1
        if case .sqlite(let path) = config.database.location.kind { lock = try lockDatabase(path) }
        defer { if lock >= 0 { close(lock) } }
        // Several hubs may share a PostgreSQL database: this one's place among
        // them (alone on SQLite). Built first: monitoring and alerting ask it
        // what to run.
        let cluster = db.engine == .postgres
            ? HubCluster(database: db, nodeID: nodeID(config), version: CLI.versionString)
            : HubCluster.standalone()
        // How the hubs wake each other (check-now, assignment changes):
        // LISTEN/NOTIFY on PostgreSQL, nothing alone.
        let wake = cluster.isShared ? try WakeChannel(database: db) : WakeChannel.inert
        try bootstrapAdmin(db)

        var settings = APISettings()
        settings.hubName = config.hub.name
        settings.publicURL = config.server.publicURL
        settings.metricsPublic = config.metrics.isPublic
        settings.version = CLI.versionString
        settings.databaseEngine = db.engine
        settings.nodeID = cluster.isShared ? cluster.nodeID : nil
        settings.oauthClients = config.oauthClients.map { OAuthClient(id: $0.id, name: $0.name, redirectURIs: $0.redirectURIs) }
        settings.ssoProviders = config.ssoProviders
        settings.ssoExtraCAFile = config.checks.caFile.isEmpty ? nil : config.checks.caFile
        settings.phoneApproval = config.auth.phoneApproval
        settings.maxDevicesPerUser = config.mobile.maxDevicesPerUser
        settings.statusPageCacheSeconds = config.statusPages.cacheSeconds
        var monitorSettings = MonitoringSettings()
        monitorSettings.location = config.checks.location
        monitorSettings.maxConcurrent = config.checks.maxConcurrent
        monitorSettings.publicURL = config.server.publicURL
        monitorSettings.extraCAFile = config.checks.caFile.isEmpty ? nil : config.checks.caFile
        monitorSettings.sourceAddress = IPAddress(literal: config.checks.sourceAddress)
        monitorSettings.retention.rawDays = Int64(config.retention.rawDays)
        monitorSettings.retention.hourlyDays = Int64(config.retention.hourlyDays)
        monitorSettings.retention.dailyDays = Int64(config.retention.dailyDays)
        monitorSettings.retention.rawSampleMinutes = Int64(config.retention.rawSampleMinutes)
        monitorSettings.agentPollInterval = Int64(config.agents.pollInterval)
        // Built first and shared: alerting asks the calendar whether a monitor
        // is quiet, monitoring keeps it current.
        let calendar = MaintenanceCalendar(database: db)
        let notify = NotifyService(database: db, hubName: config.hub.name, publicURL: config.server.publicURL,
                                   extraCAFile: monitorSettings.extraCAFile,
                                   smtp: smtpSettings(config.smtp, extraCAFile: monitorSettings.extraCAFile),
                                   outboxRetentionDays: monitorSettings.retention.rawDays,
                                   quiet: { id, at in calendar.isInMaintenance(monitorID: id, at: at) }, cluster: cluster)
        let monitoring = MonitoringService(database: db, settings: monitorSettings, calendar: calendar, eventSink: notify.notifier,
                                           cluster: cluster, wake: wake)
        // Joined before anything runs, so the first checks and claims already
        // know the other hubs.
        try cluster.start { changed in
            monitoring.clusterTick(changed: changed)
            notify.clusterTick(changed: changed)
        }
        // Loaded before alerting starts: the escalation job's first pass
        // (within a second) must already know which monitors are quiet.
        try calendar.reload()
        try notify.start()
        try monitoring.start()
        // After the start: its first event (listening) re-reads whatever
        // another hub announced before.
        wake.start { event in monitoring.wake(event) }
        let app = Application(database: db, settings: settings, monitoring: monitoring, notify: notify)
        let server: HTTPServer
        do {
            server = try HTTPServer(configuration: serverConfiguration(config), router: app.makeRouter(), metrics: app.metrics)
        } catch {
            wake.stop()
            monitoring.stop()
            notify.stop()
            db.close()
            throw CLIError("cannot listen on \(config.server.listen): \(error)")
        }
        Log.shared.info("pingtxt hub started", ["version": CLI.versionString, "listen": "\(config.server.listen.host):\(server.port)",
                                                "public_url": config.server.publicURL, "database": config.database.location.redacted])

        while true {
            let sig = pt_wait_signal()
            if sig == SIGTERM || sig == SIGINT { break }
            Log.shared.info("signal ignored", ["signal": "\(sig)"])
        }
        Log.shared.info("stopping: finishing in-flight requests")
        monitoring.agents.drain()   // parked long polls would hold the drain for their whole wait
        server.shutdown()
        wake.stop()
        monitoring.stop()
        notify.stop()
        cluster.stop()   // the others take over at their next beat
        db.close()
        Log.shared.info("stopped")
        return 0
    }

    static func serverConfiguration(_ config: HubConfig) -> ServerConfiguration {
        var s = ServerConfiguration()
        s.host = config.server.listen.host
        s.port = UInt16(config.server.listen.port)
        s.eventLoops = config.effectiveEventLoops
        s.workers = config.effectiveWorkers
        s.blockingWorkers = config.server.blockingWorkers
        s.maxConnections = config.server.maxConnections
        s.limits = HTTPLimits(maxRequestLineBytes: config.server.maxRequestLineBytes,
                              maxHeaderBytes: config.server.maxHeaderBytes,
                              maxBodyBytes: config.server.maxBodyBytes)
        s.headerTimeoutMillis = config.server.headerTimeoutMs
        s.idleTimeoutMillis = config.server.idleTimeoutMs
        s.shutdownTimeoutMillis = config.server.shutdownTimeoutMs
        s.accessLog = config.server.accessLog
        let proxies = config.server.trustedProxies
        if !proxies.isEmpty {
            s.trustedProxies = TrustedProxies { address in proxies.contains { $0.contains(address) } }
        }
        return s
    }

    /// `[smtp]` as the mail client's settings; nil when no host is set. The
    /// checks' extra CA file is trusted for the mail server too (an internal
    /// CA usually signs both).
    static func smtpSettings(_ c: HubConfig.SMTP, extraCAFile: String?) -> SMTPSettings? {
        guard c.isConfigured else { return nil }
        let security: SMTPSettings.Security = switch c.security {
        case .startTLS: .startTLS
        case .tls: .implicitTLS
        case .none: .none
        }
        return SMTPSettings(host: c.host, port: UInt16(c.port), security: security,
                            username: c.username.isEmpty ? nil : c.username, password: c.password.isEmpty ? nil : c.password,
                            from: c.from, heloName: c.heloName.isEmpty ? hostName() : c.heloName,
                            timeoutMillis: c.timeoutSeconds * 1000, extraCAFile: extraCAFile)
    }

    /// This hub's id among hubs sharing a database: host name and port, so
    /// a restarted hub is the same node (its old claims are its own) and two
    /// hubs on one machine are not.
    static func nodeID(_ config: HubConfig) -> String {
        let port = config.server.listen.port
        return port == 0 ? "\(hostName()):\(getpid())" : "\(hostName()):\(port)"
    }

    /// This machine's name for EHLO, or `localhost` when it is not a plain host name.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let ok = !name.isEmpty && name.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 122) || $0 == 45 || $0 == 46 }
        return ok ? name : "localhost"
    }

    /// One hub per database: two would both schedule checks and send every
    /// alert twice. An advisory flock (SQLite itself uses fcntl locks, which
    /// this does not disturb) is held for the life of the process; CLI
    /// commands do not take it, so they work beside the running hub.
    /// `busy`: the refusal when the lock is held (`migrate-db` says "stop it").
    static func lockDatabase(_ path: String, busy: String? = nil) throws -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError("cannot open \(path) to lock it: \(String(cString: strerror(errno)))") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            throw CLIError(busy ?? "another pingtxt hub is already running on the database \(path)")
        }
        return fd
    }

    /// First start: `PINGTXT_ADMIN_EMAIL` + `PINGTXT_ADMIN_PASSWORD` create
    /// the first admin before the server answers; otherwise say how to.
    static func bootstrapAdmin(_ db: Database) throws {
        let users = UserService(database: db)
        guard try users.count() == 0 else { return }
        let env = HubConfig.processEnvironment()
        if let email = env["PINGTXT_ADMIN_EMAIL"], let password = env["PINGTXT_ADMIN_PASSWORD"], !email.isEmpty {
            do {
                _ = try describe { try users.create(email: email, name: nil, role: .admin, password: password) }
            } catch where (try? users.find(email: email)) != nil {
                // Several hubs started together on one empty database: another
                // one created the same first admin a moment earlier.
                return
            }
            Log.shared.info("first admin created from PINGTXT_ADMIN_EMAIL", ["email": email])
        } else {
            Log.shared.warn("no users yet: create an admin with 'pingtxt user add --email you@example.com --role admin', "
                + "or set PINGTXT_ADMIN_EMAIL and PINGTXT_ADMIN_PASSWORD before the first start")
        }
    }
}
