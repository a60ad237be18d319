import Synchronization
public import GeoCore

/// A push source an app feeds itself: `yield(_:)` a fix, `reportLost()`, `finish()`.
///
/// Every run started by `events()` receives what is pushed after it started; pushes with no run
/// listening are dropped. Each run buffers up to `bufferLimit` events and then drops the oldest.
public final class CustomPositionSource: PositionSource, Sendable {
    public let name: String
    /// Events each run keeps for a slow consumer before it drops the oldest.
    public let bufferLimit: Int

    private struct State {
        var runs: [Int: AsyncThrowingStream<PositionSourceEvent, any Error>.Continuation] = [:]
        var nextID = 0
    }
    private let state = Mutex(State())

    public init(name: String = "custom", bufferLimit: Int = 1024) {
        self.name = name
        self.bufferLimit = bufferLimit
    }

    /// The number of runs currently consuming this source (zero once every consumer left).
    public var activeRuns: Int { state.withLock { $0.runs.count } }

    public func events() -> AsyncThrowingStream<PositionSourceEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: PositionSourceEvent.self,
                                                                    bufferingPolicy: .bufferingNewest(bufferLimit))
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            s.runs[s.nextID] = continuation
            return s.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.runs.removeValue(forKey: id) }
        }
        return stream
    }

    /// Delivers a fix to every running consumer.
    public func yield(_ location: Location) { broadcast(.location(location)) }

    /// Tells every running consumer that the position is lost.
    public func reportLost() { broadcast(.lost) }

    /// Reports an authorization change.
    public func reportAuthorization(_ status: AuthorizationStatus) { broadcast(.authorizationChanged(status)) }

    /// Ends every run, normally or with an error.
    public func finish(throwing error: (any Error)? = nil) {
        let runs = state.withLock { s in defer { s.runs = [:] }; return Array(s.runs.values) }
        runs.forEach { $0.finish(throwing: error) }
    }

    private func broadcast(_ event: PositionSourceEvent) {
        let runs = state.withLock { Array($0.runs.values) }
        runs.forEach { $0.yield(event) }
    }
}
