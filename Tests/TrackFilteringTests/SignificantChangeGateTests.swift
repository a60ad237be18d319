import Testing
import GeoCore
import TrackFiltering

@Test func significantChange_passesBigMovesOnly_noHeartbeatByDefault() {
    var gate = SignificantChangeGate() // 500 m, no heartbeat (issue 33, item 7)
    func admits(_ l: Location) -> Bool { gate.admits(l) }
    // Every 10 s another 110 m north: 0, 550, 1100 m pass (each ≥ 500 m from the last that passed).
    let passed = (0...10).filter { admits(fix(Double($0) * 10, east: 0, north: Double($0) * 110)) }
    #expect(passed == [0, 5, 10])
    // 15 min and 2 h after the last pass, 10 m further: held (Core Location reports moves only).
    #expect(!admits(fix(100 + 900, east: 0, north: 1110)))
    #expect(!admits(fix(100 + 7200, east: 0, north: 1110)))
    #expect(gate.lastPassed?.timestamp == fix(100, east: 0, north: 0).timestamp)
}

@Test func significantChange_firstFixAlwaysPasses_andParametersApply() {
    var gate = SignificantChangeGate(minimumDistance: .meters(50), heartbeat: .seconds(60))
    func admits(_ l: Location) -> Bool { gate.admits(l) }
    #expect(admits(fix(0, east: 0, north: 0)))
    #expect(!admits(fix(1, east: 49, north: 0)))      // 49 m < 50 m, 1 s < 60 s
    #expect(admits(fix(2, east: 50.5, north: 0)))     // ≥ 50 m (the plane's scale is within 1 %)
    #expect(!admits(fix(61, east: 50.5, north: 0)))   // 59 s since the last pass
    #expect(admits(fix(62, east: 50.5, north: 0)))    // 60 s
}
