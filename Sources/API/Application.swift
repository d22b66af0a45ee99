import Auth
import Core
import HTTP
import Monitoring
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
    public let oauth: OAuthService
    /// The web sessions' answer to "who is signed in on this browser".
    public let browserSignIn: any BrowserSignIn
    private let startedAt = Time.now()

    public init(database: Database, settings: APISettings, monitoring: MonitoringService, metrics: HTTPMetrics = HTTPMetrics(),
                browserSignIn: any BrowserSignIn = NoBrowserSignIn()) {
        self.database = database
        self.monitoring = monitoring
        self.settings = settings
        self.metrics = metrics
        authenticator = Authenticator(database: database)
        users = UserService(database: database)
        tokens = TokenService(database: database)
        oauth = OAuthService(database: database, clients: OAuthClients(extra: settings.oauthClients))
        self.browserSignIn = browserSignIn
    }

    public func makeRouter() -> Router {
        let access = Access(authenticator: authenticator)
        let openAPI = OpenAPIDocument.build(version: settings.version, serverURL: settings.publicURL).serialized()
        let system = SystemRoutes(access: access, settings: settings, metrics: metrics, monitoring: monitoring,
                                  openAPI: openAPI, startedAt: startedAt)
        let account = AccountRoutes(access: access, tokens: tokens)
        let userRoutes = UserRoutes(access: access, users: users)
        let issuer = settings.issuer
        return Router { r in
            system.register(&r)
            account.register(&r)
            userRoutes.register(&r)
            MonitorRoutes(access: access, monitoring: monitoring).register(&r)
            IncidentRoutes(access: access, monitoring: monitoring).register(&r)
            MaintenanceRoutes(access: access, monitoring: monitoring).register(&r)
            PingRoutes(monitoring: monitoring).register(&r)
            TokenRoutes(service: oauth, issuer: issuer).register(&r)
            AuthorizeRoutes(service: oauth, signIn: browserSignIn, issuer: issuer, hubName: settings.hubName).register(&r)
            ConnectedAppsRoutes(access: access, service: oauth).register(&r)
        }
    }
}
