import Synchronization

extension Example {
    /// Polls `condition` every 10 ms until it holds or `timeout` (wall-clock) passes; true when it
    /// held. The examples run replays in real time, so what a sample shows arrives asynchronously.
    public static func waitUntil(timeout: Duration = .seconds(30), _ condition: () async -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }
}

/// A count shared with callbacks that run on other threads (notification observers, delegates).
public final class Counter: Sendable {
    private let count = Mutex(0)
    public init() {}
    /// The count now.
    public var value: Int { count.withLock { $0 } }
    /// Adds one.
    public func increment() { count.withLock { $0 += 1 } }
}
