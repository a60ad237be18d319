#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import GeoBase
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The domain of the PostgreSQL store's one error type.
public enum PostgresStoreErrorDomain {}
/// The PostgreSQL store's errors (STYLE.md §3.7): a bad `--postgres` URL, or a database that
/// could not be reached, refused a statement or did not answer in time; the location names the
/// URL part or the server.
public typealias PostgresStoreError = LocatedError<PostgresStoreErrorDomain>

extension ErrorCode where Domain == PostgresStoreError {
    /// A URL that is not `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…]`.
    public static var badURL: Self { Self("bad PostgreSQL URL") }
    /// The server refused the connection or a statement, or closed the connection.
    public static var unavailable: Self { Self("PostgreSQL unavailable") }
    /// The server did not answer within the store's deadline.
    public static var timedOut: Self { Self("PostgreSQL timed out") }
}

/// Where and how to reach PostgreSQL: parsed from `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`
/// (libpq's URI form, RFC 3986; `postgresql://` too). No TLS yet (`?sslmode=disable` only): the
/// store is meant for loopback or a private network.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    public init(url: String) throws(PostgresStoreError) {
        func bad(_ message: String) -> PostgresStoreError { PostgresStoreError(.badURL, message, at: "URL '\(url)'") }
        guard let parts = URLComponents(string: url), let scheme = parts.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw bad("not postgres://USER@HOST:PORT/DATABASE")
        }
        guard let host = parts.host, !host.isEmpty else { throw bad("no host") }
        guard let user = parts.user, !user.isEmpty else { throw bad("no user name before '@'") }
        let database = String(parts.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw bad("no database name after the port") }
        let port = parts.port ?? 5432
        guard (1...65_535).contains(port) else { throw bad("port \(port) is not in 1…65535") }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.user = user
        self.password = parts.password
        self.database = database
        if let mode = parts.queryItems?.first(where: { $0.name == "sslmode" })?.value, mode != "disable" {
            throw bad("sslmode '\(mode)': only disable (no TLS: loopback or a private network)")
        }
    }

    /// The URL without its password.
    public var description: String { "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" }
}

/// A few PostgreSQL connections kept open and reused, each operation under a deadline.
///
/// Not postgres-nio's `PostgresClient`: its pool waits for a connection without limit while the
/// server is down, and a tracking server must answer 503 at once instead. Here a connection is
/// opened when none is idle (a refused connection fails at once), any error closes it, and an
/// operation still running at its deadline has its connection closed, which fails the query in
/// flight — so a stopped, killed or frozen server surfaces as an error within the deadline.
final class PostgresConnector: Sendable {
    let location: PostgresLocation
    let configuration: PostgresConnection.Configuration
    /// The longest one operation (connect included) may take.
    let deadline: TimeAmount
    /// Idle connections beyond this many are closed.
    let maximumIdle: Int
    let logger: Logger
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic<Int>(1)

    init(_ location: PostgresLocation, deadline: Duration = .seconds(5), maximumIdle: Int = 4) {
        self.location = location
        var configuration = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.user,
                                                             password: location.password, database: location.database, tls: .disable)
        let milliseconds = deadline.components.seconds * 1000 + deadline.components.attoseconds / 1_000_000_000_000_000
        self.deadline = .milliseconds(milliseconds)
        configuration.options.connectTimeout = .milliseconds(milliseconds)
        self.configuration = configuration
        self.maximumIdle = maximumIdle
        var logger = Logger(label: "locationkit.tracking.postgres")
        logger.logLevel = .critical
        self.logger = logger
    }

    /// Runs `body` on a connection, blocking this thread (the group committer's writer thread;
    /// never an event loop's).
    func blocking<R>(_ body: (PostgresConnection) throws -> R) throws(PostgresStoreError) -> R {
        let connection: PostgresConnection
        do { connection = try take().wait() } catch { throw failure(error, expired: false) }
        let watch = Watch(connection, deadline)
        do {
            let result = try body(connection)
            watch.finish()
            give(connection)
            return result
        } catch {
            watch.finish()
            Self.close(connection)
            throw failure(error, expired: watch.expired)
        }
    }

    /// Runs `body` on a connection, suspending meanwhile.
    func suspending<R>(_ body: (PostgresConnection) async throws -> R) async throws(PostgresStoreError) -> R {
        let connection: PostgresConnection
        do { connection = try await take().get() } catch { throw failure(error, expired: false) }
        let watch = Watch(connection, deadline)
        do {
            let result = try await body(connection)
            watch.finish()
            give(connection)
            return result
        } catch {
            watch.finish()
            Self.close(connection)
            throw failure(error, expired: watch.expired)
        }
    }

    /// Closes a connection whose operation outlived the deadline.
    struct Watch {
        final class Flag: Sendable { let value = Atomic<Bool>(false) }
        let task: Scheduled<Void>
        let flag = Flag()

        init(_ connection: PostgresConnection, _ deadline: TimeAmount) {
            let flag = self.flag
            task = connection.eventLoop.scheduleTask(in: deadline) {
                flag.value.store(true, ordering: .relaxed)
                PostgresConnector.close(connection)
            }
        }

        var expired: Bool { flag.value.load(ordering: .relaxed) }
        func finish() { task.cancel() }
    }

    /// An idle connection, or a new one. A new one is under the deadline too: `connectTimeout`
    /// bounds only the TCP connect, and a server that accepts it and then says nothing (frozen,
    /// or its socket kept by a dying postmaster) would hold the caller for ever.
    private func take() -> EventLoopFuture<PostgresConnection> {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection.eventLoop.makeSucceededFuture(connection) }
        }
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let promise = loop.makePromise(of: PostgresConnection.self)
        let settled = Watch.Flag()
        let timer = loop.scheduleTask(in: deadline) { [deadline, location] in
            guard !settled.value.exchange(true, ordering: .relaxed) else { return }
            promise.fail(PostgresStoreError(.timedOut, "no connection within \(deadline.nanoseconds / 1_000_000) ms", at: location.description))
        }
        PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: logger).whenComplete { result in
            timer.cancel()
            let late = settled.value.exchange(true, ordering: .relaxed)
            switch result {
            case .success(let connection): if late { Self.close(connection) } else { promise.succeed(connection) }
            case .failure(let error): if !late { promise.fail(error) }
            }
        }
        return promise.futureResult
    }

    private func give(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        let kept = idle.withLock { list -> Bool in
            guard list.count < maximumIdle else { return false }
            list.append(connection)
            return true
        }
        if !kept { Self.close(connection) }
    }

    private func failure(_ error: any Error, expired: Bool) -> PostgresStoreError {
        let place = location.description
        if expired { return PostgresStoreError(.timedOut, "no answer within \(deadline.nanoseconds / 1_000_000) ms", at: place) }
        if let error = error as? PostgresStoreError { return error }
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return PostgresStoreError(.unavailable, "\(error.serverInfo?[.sqlState] ?? "?"): \(message)", at: place)
            }
            let cause = error.underlying.map { ": \($0)" } ?? ""
            return PostgresStoreError(.unavailable, "\(error.code)\(cause)", at: place)
        }
        return PostgresStoreError(.unavailable, "\(error)", at: place)
    }

    /// Closes `connection` without waiting (failing the query in flight, if any). The
    /// completion handler holds the connection until it is closed: postgres-nio asserts that a
    /// connection is closed before it is deinitialised.
    static func close(_ connection: PostgresConnection) {
        let closed: EventLoopFuture<Void> = connection.close()
        closed.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    deinit { close() }

    /// Closes the idle connections.
    func close() {
        for connection in idle.withLock({ list in defer { list = [] }; return list }) { Self.close(connection) }
    }
}
