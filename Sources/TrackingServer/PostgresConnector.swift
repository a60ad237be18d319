import Platform
public import GeoBase
import GeoCore
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
    /// Databases that cannot serve together: fewer than two shards, one database given twice,
    /// or a replica of none of them.
    public static var badShards: Self { Self("bad PostgreSQL shards") }
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

/// A few PostgreSQL connections kept open and reused; every operation ends — with its result,
/// a `PostgresStoreError`, or at its deadline — whatever the server does.
///
/// Not postgres-nio's `PostgresClient`: its pool waits for a connection without limit while the
/// server is down, and a tracking server must answer 503 at once instead. Here a connection is
/// opened when none is idle (a refused connection fails at once), any error closes it, and an
/// operation's statements go through its `PostgresSession`, which ends every wait on them by the
/// deadline (then closing the connection) and never hands a statement to a connection the
/// server has ended (postgres-nio would drop it unanswered: see `PostgresSession.query`).
final class PostgresConnector: Sendable {
    let location: PostgresLocation
    let configuration: PostgresConnection.Configuration
    /// The longest a connect, or one statement's answer, may take.
    let deadline: TimeAmount
    /// Idle connections beyond this many are closed.
    let maximumIdle: Int
    /// The most `suspending` operations (the reads) at once, each on a connection of its own;
    /// more wait for one of them to end, in turn. Without a bound, 100 `/live` subscribers
    /// arriving at once opened a connection each for their first read, PostgreSQL refused
    /// connections past its `max_connections` (100 by default: "53300: sorry, too many clients
    /// already"), and the commits, whose writer then needed a new connection, failed with them
    /// (tracking.sh, 5,000 devices, 2026-12-05). The `blocking` operations (the group
    /// committer's writers, a few) do not wait for the reads.
    let reads: Turns
    let logger: Logger
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic<Int>(1)

    init(_ location: PostgresLocation, deadline: Duration = .seconds(5), maximumIdle: Int = 4, maximumReads: Int = 8) {
        self.location = location
        var configuration = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.user,
                                                             password: location.password, database: location.database, tls: .disable)
        let milliseconds = deadline.milliseconds
        self.deadline = .milliseconds(milliseconds)
        configuration.options.connectTimeout = .milliseconds(milliseconds)
        self.configuration = configuration
        self.maximumIdle = maximumIdle
        self.reads = Turns(maximum: maximumReads)
        var logger = Logger(label: "locationkit.tracking.postgres")
        logger.logLevel = .critical
        self.logger = logger
    }

    /// Runs `body` on a session, blocking this thread (the group committer's writer thread;
    /// never an event loop's).
    func blocking<R>(_ body: (PostgresSession) throws -> R) throws(PostgresStoreError) -> R {
        let session: PostgresSession
        do { session = try open().wait() } catch { throw failure(error, expired: false) }
        do {
            let result = try body(session)
            give(session.end())
            return result
        } catch {
            Self.close(session.end())
            throw failure(error, expired: session.expired)
        }
    }

    /// Runs `body` on a session, suspending meanwhile, and first for a turn while
    /// `reads.maximum` others run.
    func suspending<R>(_ body: (PostgresSession) async throws -> R) async throws(PostgresStoreError) -> R {
        await reads.take()
        defer { reads.end() }
        let session: PostgresSession
        do { session = try await open().get() } catch { throw failure(error, expired: false) }
        do {
            let result = try await body(session)
            give(session.end())
            return result
        } catch {
            Self.close(session.end())
            throw failure(error, expired: session.expired)
        }
    }

    /// A session on an idle connection, or on a new one. A new connection's handshake is under
    /// the deadline too: `connectTimeout` bounds only the TCP
    /// connect, and a server that accepts it and then says nothing (frozen, or its socket kept
    /// by a dying postmaster) would hold the caller for ever.
    private func open() -> EventLoopFuture<PostgresSession> {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed {
                return connection.eventLoop.makeSucceededFuture(PostgresSession(connection, connector: self))
            }
        }
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let loop = MultiThreadedEventLoopGroup.singleton.any()
        let promise = loop.makePromise(of: PostgresSession.self)
        let settled = Atomic<Bool>(false)
        let timer = loop.scheduleTask(in: deadline) { [deadline, location] in
            guard !settled.exchange(true, ordering: .relaxed) else { return }
            promise.fail(PostgresStoreError(.timedOut, "no connection within \(deadline.nanoseconds / 1_000_000) ms", at: location.description))
        }
        PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: logger).whenComplete { result in
            timer.cancel()
            let late = settled.exchange(true, ordering: .relaxed)
            switch result {
            case .success(let connection):
                if late { Self.close(connection) } else { promise.succeed(PostgresSession(connection, connector: self)) }
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

    /// What an operation that outlived the deadline throws.
    fileprivate var timeout: PostgresStoreError {
        PostgresStoreError(.timedOut, "no answer within \(deadline.nanoseconds / 1_000_000) ms", at: location.description)
    }

    private func failure(_ error: any Error, expired: Bool) -> PostgresStoreError {
        let place = location.description
        if expired { return timeout }
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

/// One operation's connection and deadline: its statements go through `query`.
///
/// postgres-nio writes a statement into the connection's channel and answers it from its
/// channel handler; once the channel has closed (the server ended the connection: a crash, a
/// restart, `pg_terminate_backend`) NIO has removed that handler, the write is dropped and the
/// statement's promise is never completed — a caller waiting on it waits for ever, and closing
/// the connection at the deadline does not help, as it is closed already. This was the crash
/// test's hang (issue 35): the group committer's `wait()` on a statement sent just after
/// PostgreSQL was stopped. So `query` hands the statement over on the connection's event loop,
/// where the channel cannot close between the check and the write, and only while the channel
/// is open (an open channel's handler answers every statement, with an error if the connection
/// ends meanwhile); and every answer is also failed at its deadline, so that no wait on the
/// database outlives it whatever the library does.
final class PostgresSession: Sendable {
    let connection: PostgresConnection
    let logger: Logger
    /// Where, for errors: the URL without its password.
    private let place: String
    /// The longest one statement may wait for its answer.
    private let deadline: TimeAmount
    private let timeout: PostgresStoreError
    private let timedOut = Flag()

    final class Flag: Sendable { let value = Atomic<Bool>(false) }

    fileprivate init(_ connection: PostgresConnection, connector: PostgresConnector) {
        self.connection = connection
        self.logger = connector.logger
        self.place = connector.location.description
        self.deadline = connector.deadline
        self.timeout = connector.timeout
    }

    /// Runs one statement and collects its rows. The answer fails at once when the server has
    /// ended the connection, and at the deadline after the statement was handed over at the
    /// latest (then the connection is closed). The deadline counts from the hand-over, not from
    /// the operation's start: time this process spends between statements (a busy machine) is
    /// not the database's.
    func query(_ query: PostgresQuery) -> EventLoopFuture<PostgresQueryResult> {
        let answer = connection.eventLoop.makePromise(of: PostgresQueryResult.self)
        connection.eventLoop.execute { [connection, logger, place, deadline, timeout, timedOut] in
            guard !connection.isClosed else {
                answer.fail(PostgresStoreError(.unavailable, "the server closed the connection", at: place))
                return
            }
            let timer = connection.eventLoop.scheduleTask(in: deadline) {
                timedOut.value.store(true, ordering: .relaxed)
                answer.fail(timeout)
                PostgresConnector.close(connection)
            }
            connection.query(query, logger: logger).whenComplete { result in
                timer.cancel()
                answer.completeWith(result)
            }
        }
        return answer.futureResult
    }

    /// Whether a statement outlived the deadline (and closed the connection).
    var expired: Bool { timedOut.value.load(ordering: .relaxed) }

    /// The connection, for reuse or closing.
    fileprivate func end() -> PostgresConnection { connection }
}
