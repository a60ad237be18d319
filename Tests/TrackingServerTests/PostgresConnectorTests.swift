import Foundation
import GeoBase
import GeoTestSupport
import NIOCore
import PostgresNIO
import Testing
@testable import TrackingServer

/// `PostgresConnector`'s promise: every operation on the database ends, with its result, a
/// typed error or at its deadline, whatever the server does to the connection.
@Suite struct PostgresConnectorTests {
    /// Runs `body` and returns its result, or throws after `limit`: an operation that never
    /// ends fails the test instead of hanging the test run (its task is left waiting).
    static func within<R: Sendable>(_ limit: Duration, _ what: String, _ body: @escaping @Sendable () async -> R) async throws -> R {
        let waiting = Shared<CheckedContinuation<R, any Error>?>(nil)
        return try await withCheckedThrowingContinuation { continuation in
            waiting.withLock { $0 = continuation }
            Task {
                let result = await body()
                waiting.withLock { w in defer { w = nil }; return w }?.resume(returning: result)
            }
            Task {
                try? await Task.sleep(for: limit)
                waiting.withLock { w in defer { w = nil }; return w }?.resume(throwing: DidNotEnd(description: "\(what): no end within \(limit)"))
            }
        }
    }

    struct DidNotEnd: Error, CustomStringConvertible { var description: String }

    /// Runs `body` on a thread of its own (a blocking call must not hold the cooperative pool).
    static func onThread<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: body()) }.start() }
    }

    /// The server ends the connection between two statements of one operation (here by
    /// `pg_terminate_backend`; in production by a crash, a restart or an idle timeout). A
    /// statement then handed to postgres-nio is written to a closed channel whose handlers are
    /// gone, and its promise is never completed: the old connector's `wait()` waited for ever
    /// (the crash test's hang). The statement must fail at once as unavailable — not at the
    /// deadline (60 s here), and never hang — on the blocking path (group commit) and the
    /// suspending one (reads).
    @Test func statementAfterTheServerEndedTheConnection_failsAsUnavailable() async throws {
        _ = try await PostgresTestServer.with { pg in
            let connector = PostgresConnector(try PostgresLocation(url: pg.url), deadline: .seconds(60))
            defer { connector.close() }
            /// Ends `connection` from another connection and waits until its channel is closed.
            @Sendable func endedByTheServer(_ session: PostgresSession) throws {
                let pid = try #require(try session.query("SELECT pg_backend_pid()").wait().first).decode(Int32.self)
                try connector.blocking { other in _ = try other.query("SELECT pg_terminate_backend(\(pid))").wait() }
                try session.connection.closeFuture.wait()
            }
            let blocking = try await Self.within(.seconds(120), "a blocking statement on an ended connection") {
                await Self.onThread { () -> (any Error)? in
                    do {
                        try connector.blocking { session in
                            try endedByTheServer(session)
                            _ = try session.query("SELECT 1").wait()
                        }
                        return nil
                    } catch { return error }
                }
            }
            #expect((blocking as? PostgresStoreError)?.code == .unavailable, "\(String(describing: blocking))")
            let suspending = try await Self.within(.seconds(120), "a suspending statement on an ended connection") { () -> (any Error)? in
                do {
                    try await connector.suspending { session in
                        try endedByTheServer(session)
                        _ = try await session.query("SELECT 1").get()
                    }
                    return nil
                } catch { return error }
            }
            #expect((suspending as? PostgresStoreError)?.code == .unavailable, "\(String(describing: suspending))")
            // The connector is still usable: the next operation opens a new connection.
            #expect(try connector.blocking { try #require(try $0.query("SELECT 1").wait().first).decode(Int32.self) } == 1)
        }
    }
}
