import Testing
import GeoCore

@Test func validRange_openLowerBound() {
    let speed = ValidRange(above: 0, through: 10_000, unit: "m/s")
    #expect(speed.contains(13.9))
    #expect(speed.contains(10_000.0))
    for bad in [0.0, -1, 1e20, .nan, .infinity, -.infinity] { #expect(!speed.contains(bad), "\(bad)") }
    #expect(speed.description == "> 0 and ≤ 10000 m/s")
}

@Test func validRange_closed() {
    let interval = ValidRange(0.001...86_400, unit: "s")
    #expect(interval.contains(0.001) && interval.contains(86_400.0))
    #expect(!interval.contains(0.0) && !interval.contains(86_400.5) && !interval.contains(Double.nan))
    #expect(interval.contains(1) && !interval.contains(0) && !interval.contains(-1))
    #expect(interval.description == "0.001…86400 s")
}
