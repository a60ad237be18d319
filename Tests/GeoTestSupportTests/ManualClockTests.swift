import Testing
import GeoTestSupport

@Test func manualClock_wakesSleepersOnlyWhenAdvancedPastTheirDeadline() async throws {
    let clock = ManualClock()
    let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(10)), tolerance: nil) }
    while clock.sleeperCount == 0 { await Task.yield() }
    clock.advance(by: .seconds(9))
    #expect(clock.sleeperCount == 1)
    clock.advance(by: .seconds(1))
    try await sleeper.value
    #expect(clock.sleeperCount == 0)
    #expect(clock.now.offset == .seconds(10))
}

@Test func manualClock_returnsAtOnceForAPastDeadline() async throws {
    let clock = ManualClock()
    clock.advance(by: .seconds(5))
    try await clock.sleep(until: ManualClock.Instant(offset: .seconds(1)), tolerance: nil)
    #expect(clock.sleeperCount == 0)
}

@Test func manualClock_cancellationEndsASleep() async throws {
    let clock = ManualClock()
    let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(60)), tolerance: nil) }
    while clock.sleeperCount == 0 { await Task.yield() }
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await sleeper.value }
    #expect(clock.sleeperCount == 0)
}
