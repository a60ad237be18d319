import Testing
@testable import TrackingServer

/// `TrackOutput.iso8601`: stored fix times (milliseconds since 1970) as the API prints them,
/// against times worked out by hand (2026-01-01T00:00:00Z is 1,767,225,600 s; 2025-07-02 is
/// 1,751,414,400 s), before 1970 and at every millisecond digit.
@Test func iso8601_printsMillisecondsInUTC() {
    #expect(TrackOutput.iso8601(0) == "1970-01-01T00:00:00.000Z")
    #expect(TrackOutput.iso8601(1_767_225_600_123) == "2026-01-01T00:00:00.123Z")
    #expect(TrackOutput.iso8601(1_751_414_400_999) == "2025-07-02T00:00:00.999Z")
    #expect(TrackOutput.iso8601(1_751_414_399_001) == "2025-07-01T23:59:59.001Z")
    #expect(TrackOutput.iso8601(-1) == "1969-12-31T23:59:59.999Z")
    #expect(TrackOutput.iso8601(-86_400_000) == "1969-12-31T00:00:00.000Z")
}
