import Auth
import Core
import HTTP
import Monitoring
import Net
import Notify
import Store

/// The hub's HTTP surface: builds the services over one database and
/// registers every route. The executable owns start-up and shutdown.
public final class Application: Sendable {
    public let database: Database
    public let settings: APISettings
    public let metrics: HTTPMetrics
    public let authenticator: Authenticator
    public let users: UserService
    public let tokens: TokenService
    public let monitoring: MonitoringService
    /// Alerting: channels, delivery, phones.
    public let notify: NotifyService
    public let oauth: OAuthService
    public let sessions: SessionService
    public let twoFactor: TwoFactorService
    public let account: AccountService
    public let loginLimiter: LoginRateLimiter
    public let ssoUsers: SSOUserService
    /// Approving a web sign-in on the phone (SPEC §11).
    public let loginApprovals: LoginApprovalService
    /// One-time links: the app's web login, password recovery, invitations (SPEC §15).
    public let signInLinks: SignInLinkService
    /// The outbound client for SSO providers; only started when one is configured.
    private let ssoHTTP: ClientEngine?
    private let startedAt = Time.now()

    public init(database: Database, settings: APISettings, monitoring: MonitoringService, notify: NotifyService,
                metrics: HTTPMetrics = HTTPMetrics()) {
        self.database = database
        self.monitoring = monitoring
        self.notify = notify
        self.settings = settings
        self.metrics = metrics
        authenticator = Authenticator(database: database)
        users = UserService(database: database)
        tokens = TokenService(database: database)
        oauth = OAuthService(database: database, clients: OAuthClients(extra: settings.oauthClients))
        sessions = SessionService(database: database)
        twoFactor = TwoFactorService(database: database, issuer: settings.hubName)
        account = AccountService(database: database)
        loginLimiter = LoginRateLimiter()
        ssoUsers = SSOUserService(database: database, users: users)
        loginApprovals = LoginApprovalService(database: database, enabled: settings.phoneApproval)
        signInLinks = SignInLinkService(database: database)
        ssoHTTP = settings.ssoProviders.isEmpty ? nil : ClientEngine(loops: 1, maxConcurrent: 64, extraCAFile: settings.ssoExtraCAFile)
    }

    public func makeRouter() -> Router {
        let access = Access(authenticator: authenticator, sessions: sessions)
        let web = WebLayer(sessions: sessions, settings: settings)
        let openAPI = OpenAPIBytes(version: settings.version, serverURL: settings.publicURL)
        let system = SystemRoutes(access: access, settings: settings, metrics: metrics, monitoring: monitoring,
                                  notifications: notify.counters, openAPI: openAPI, startedAt: startedAt)
        let account = AccountRoutes(access: access, tokens: tokens)
        let userRoutes = UserRoutes(access: access, users: users, ssoUsers: ssoUsers,
                                    invitations: Invitations(links: signInLinks, notify: notify, settings: settings))
        let ssoButtons = settings.ssoProviders.map { (id: $0.id, name: $0.name) }
        let issuer = settings.issuer
        let security = AccountSecurityRoutes(access: access, account: self.account, twoFactor: twoFactor, limiter: loginLimiter)
        return Router { r in
            system.register(&r)
            StaticRoutes().register(&r)
            account.register(&r)
            userRoutes.register(&r)
            security.register(&r)
            LoginRoutes(web: web, users: users, twoFactor: twoFactor, limiter: loginLimiter, ssoUsers: ssoUsers,
                        approvals: loginApprovals, ssoProviders: ssoButtons, forgot: notify.sendsMail).register(&r)
            PasswordRecoveryRoutes(web: web, users: users, links: signInLinks, notify: notify,
                                   limiter: LoginRateLimiter()).register(&r)
            LoginApprovalRoutes(web: web, approvals: loginApprovals, limiter: loginLimiter, push: notify.push).register(&r)
            if let ssoHTTP {
                SSORoutes(web: web, providers: settings.ssoProviders, http: ssoHTTP, accounts: ssoUsers,
                          publicURL: settings.issuer).register(&r)
            }
            MonitorPages(web: web, monitoring: monitoring, notify: notify).register(&r)
            IncidentPages(web: web, monitoring: monitoring, notify: notify).register(&r)
            AckLinkPages(web: web, monitoring: monitoring).register(&r)
            MaintenancePages(web: web, monitoring: monitoring).register(&r)
            let monitorRoutes = MonitorRoutes(access: access, monitoring: monitoring)
            monitorRoutes.register(&r)
            ReportRoutes(access: access, monitoring: monitoring).register(&r)
            IncidentRoutes(access: access, monitoring: monitoring, notify: notify).register(&r)
            let maintenanceRoutes = MaintenanceRoutes(access: access, monitoring: monitoring)
            maintenanceRoutes.register(&r)
            let statusPages = StatusPageService(monitoring: monitoring)
            let statusPageRoutes = StatusPageRoutes(access: access, pages: statusPages)
            statusPageRoutes.register(&r)
            PublicStatusRoutes(pages: statusPages, cache: StatusPageCache(lifetimeSeconds: settings.statusPageCacheSeconds))
                .register(&r)
            StatusPagesAdmin(web: web, pages: statusPages).register(&r)
            PingRoutes(monitoring: monitoring).register(&r)
            AgentRoutes(access: access, agents: monitoring.agents).register(&r)
            AgentProtocolRoutes(access: AgentAccess(agents: monitoring.agents), agents: monitoring.agents).register(&r)
            let channelRoutes = ChannelRoutes(access: access, notify: notify)
            channelRoutes.register(&r)
            QuietHoursRoutes(access: access, quietHours: notify.quietHours).register(&r)
            EventRoutes(access: access, events: notify.events).register(&r)
            MessageRoutes(access: access, notify: notify).register(&r)
            WebLoginLinkRoutes(access: access, web: web, links: signInLinks).register(&r)
            let policyRoutes = EscalationPolicyRoutes(access: access, notify: notify)
            policyRoutes.register(&r)
            // Stable keys and configuration as code (SPEC §13).
            let keyService = ObjectKeyService(database: database)
            ByKeyRoutes(access: access, monitors: monitorRoutes, channels: channelRoutes, maintenance: maintenanceRoutes,
                        policies: policyRoutes, statusPages: statusPageRoutes, keys: keyService).register(&r)
            ConfigRoutes(access: access, monitors: monitorRoutes, channels: channelRoutes, maintenance: maintenanceRoutes,
                         policies: policyRoutes, statusPages: statusPageRoutes, keys: keyService).register(&r)
            SettingsRoutes(access: access, notify: notify).register(&r)
            TokenRoutes(service: oauth, issuer: issuer).register(&r)
            AuthorizeRoutes(service: oauth, signIn: web, issuer: issuer, hubName: settings.hubName).register(&r)
            let devices = MobileDeviceService(database: database, maxDevicesPerUser: settings.maxDevicesPerUser)
            ConnectedAppsRoutes(access: access, service: oauth, devices: devices).register(&r)
            MobileRoutes(access: access, devices: devices, settings: settings, approvals: loginApprovals, limiter: loginLimiter,
                         notify: notify).register(&r)
            // The signed-in admin pages of docs/web.md.
            SettingsPage(web: web, tokens: tokens, oauth: oauth, devices: devices, notify: notify).register(&r)
            TwoFactorPage(web: web, twoFactor: twoFactor, security: security).register(&r)
            UsersPage(web: web, users: users).register(&r)
            NotifyPage(web: web, notify: notify).register(&r)
            EscalationPages(web: web, notify: notify, monitoring: monitoring).register(&r)
        }
    }
}
