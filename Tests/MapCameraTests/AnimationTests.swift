import Foundation
import Testing
import GeoCore
import MapCamera
import GeoBase

/// van Wijk & Nuij 2003, §4 (eqs. 9–11), written out here independently of MapCamera's code:
/// widths w and distances u in start-view pixels along the path parameter s.
private struct PaperPath {
    let w0: Double, w1: Double, u1: Double, rho: Double
    var b0: Double { (w1 * w1 - w0 * w0 + pow(rho, 4) * u1 * u1) / (2 * w0 * rho * rho * u1) }
    var b1: Double { (w1 * w1 - w0 * w0 - pow(rho, 4) * u1 * u1) / (2 * w1 * rho * rho * u1) }
    var r0: Double { log(-b0 + (b0 * b0 + 1).squareRoot()) }
    var r1: Double { log(-b1 + (b1 * b1 + 1).squareRoot()) }
    var length: Double { (r1 - r0) / rho }
    func w(_ s: Double) -> Double { w0 * cosh(r0) / cosh(rho * s + r0) }
    func u(_ s: Double) -> Double { w0 / (rho * rho) * (cosh(r0) * tanh(rho * s + r0) - sinh(r0)) }
}

/// Tokyo z15 → Osaka z15 in a 1280 × 720 view (the check's flight), and the paper's path for it.
private func tokyoOsaka(_ animation: MapAnimation, duration: Duration? = .seconds(3)) throws -> (CameraTransition, PaperPath) {
    let a = try camera(35.6812, 139.7671, zoom: 15), b = try camera(34.7025, 135.4959, zoom: 15)
    let pa = WebMercator.worldPoint(a.geoCenter), pb = WebMercator.worldPoint(b.geoCenter)
    let u1 = hypot(pb.x - pa.x, pb.y - pa.y) * a.worldSize
    return (try CameraTransition(from: a, to: b, animation: animation, duration: duration),
            PaperPath(w0: 1280, w1: 1280, u1: u1, rho: animation == .rocket ? 2 : 1.42))
}

/// The distance travelled by a frame from the start, start-view pixels.
private func travelled(_ s: CameraState, from a: CameraState) -> Double {
    let p = WebMercator.worldPoint(s.geoCenter), o = WebMercator.worldPoint(a.geoCenter)
    return hypot(p.x - o.x, p.y - o.y) * a.worldSize
}

@Test func bow_followsVanWijkNuijClosedForm_everyFrame() throws {
    let (move, paper) = try tokyoOsaka(.bow)
    let a = move.start
    // Each frame's (w, u) lies on the paper's curve: from w, cosh(ρs + r0) = w0 cosh r0 / w
    // gives tanh(ρs + r0) up to its sign (negative before the peak), hence u.
    let peakU = paper.u(-paper.r0 / paper.rho)
    for i in 0...90 {
        let s = move.state(atProgress: Double(i) / 90)
        let w = 1280 / exp2(s.zoomLevel - 15), u = travelled(s, from: a)
        let x = paper.w0 * cosh(paper.r0) / w
        let tanhMagnitude = (max(0, 1 - 1 / (x * x))).squareRoot()
        let expected = paper.w0 / (paper.rho * paper.rho) * (cosh(paper.r0) * (u < peakU ? -tanhMagnitude : tanhMagnitude) - sinh(paper.r0))
        // 1e-6 of the 200 000 px flight: the path parameter inverted through cosh near the peak.
        #expect(abs(u - expected) < 1e-6 * paper.u1, "frame \(i): u \(u) vs \(expected)")
    }
}

@Test func bow_timing_isMapLibresDefaultEasingOverThePathLength() throws {
    let (move, paper) = try tokyoOsaka(.bow)
    // CSS `ease`, cubic-bezier(0.25, 0.1, 0.25, 1), at t = 0.5 is 0.8024033877399112 (browsers'
    // value; MapLibre's flyTo eases the path parameter with it).
    let s = 0.8024033877399112 * paper.length
    let mid = move.state(atProgress: 0.5)
    #expect(abs(mid.zoomLevel - (15 + log2(paper.w0 / paper.w(s)))) < 1e-6) // zoom levels
    #expect(abs(travelled(mid, from: move.start) - paper.u(s)) < 1e-6 * paper.u1)
    // Without a duration, S / V with MapLibre's speed V = 1.2.
    let natural = try tokyoOsaka(.bow, duration: nil).0.duration / .seconds(1)
    #expect(abs(natural - paper.length / 1.2) < 1e-6) // seconds
}

@Test func bow_zoomsOutToThePaperPeakAndLandsExactly() throws {
    let (move, paper) = try tokyoOsaka(.bow)
    let frames = (0...3000).map { move.state(atProgress: Double($0) / 3000) }
    let lowest = frames.map(\.zoomLevel).min() ?? 99
    // The widest view is w0 cosh r0 (where ρs + r0 = 0).
    let peak = 15 - log2(cosh(paper.r0))
    #expect(abs(lowest - peak) < 1e-4, "lowest \(lowest) vs \(peak)") // zoom levels: frames sample the peak
    #expect(lowest < 11)
    #expect(move.state(atProgress: 1) == move.destination)
    #expect(move.state(atElapsed: .seconds(3)) == move.destination)
    #expect(move.state(atElapsed: .seconds(-1)) == move.start)
}

@Test func rocket_climbsHigherAndSoonerThanBow() throws {
    let (bow, _) = try tokyoOsaka(.bow), (rocket, paper) = try tokyoOsaka(.rocket)
    let zoomsBow = (0...300).map { bow.state(atProgress: Double($0) / 300).zoomLevel }
    let zoomsRocket = (0...300).map { rocket.state(atProgress: Double($0) / 300).zoomLevel }
    #expect(zoomsRocket.min()! < zoomsBow.min()! - 0.5)
    #expect(abs(zoomsRocket.min()! - (15 - log2(cosh(paper.r0)))) < 1e-3)
    #expect(zoomsRocket[30] < zoomsBow[30] - 1) // a tenth of the time in, well above the bow
    #expect(rocket.state(atProgress: 1) == rocket.destination)
    let naturalRocket = try tokyoOsaka(.rocket, duration: nil).0.duration, naturalBow = try tokyoOsaka(.bow, duration: nil).0.duration
    #expect(naturalRocket < naturalBow)
}

@Test func linear_easesEveryPropertyWithoutZoomingOut() throws {
    let a = try camera(35.6812, 139.7671, zoom: 15, orientation: 350, tilt: 10)
    let b = try camera(34.7025, 135.4959, zoom: 13, orientation: 20, tilt: 40)
    let move = try CameraTransition(from: a, to: b, animation: .linear, duration: .seconds(2))
    var previous = a
    for i in 1...100 {
        let s = move.state(atProgress: Double(i) / 100)
        #expect(s.zoomLevel <= previous.zoomLevel && s.zoomLevel >= 13)
        #expect(s.tilt >= previous.tilt)
        // The short way round: 350° → 20° passes north, never through 180°.
        #expect(s.orientation >= 350 || s.orientation <= 20, "\(s.orientation)")
        previous = s
    }
    let mid = move.state(atProgress: 0.5)
    #expect(abs(mid.zoomLevel - (15 - 2 * 0.8024033877399112)) < 1e-9) // CSS ease at 0.5
    #expect(move.state(atProgress: 1) == b)
    #expect(try CameraTransition(from: a, to: b, animation: .linear).duration == .milliseconds(500))
}

@Test func none_jumps() throws {
    let a = try camera(0, 0, zoom: 3), b = try camera(10, 10, zoom: 5)
    let move = try CameraTransition(from: a, to: b, animation: .none, duration: .seconds(5))
    #expect(move.duration == .zero && move.state(atProgress: 0) == b && move.state(atElapsed: .zero) == b)
}

@Test func pureZoom_andAntimeridian_andBadDurations() throws {
    let a = try camera(10, 20, zoom: 4), b = try camera(10, 20, zoom: 12)
    let zoomIn = try CameraTransition(from: a, to: b, animation: .bow, duration: .seconds(1))
    let zooms = (0...50).map { zoomIn.state(atProgress: Double($0) / 50).zoomLevel }
    #expect(zip(zooms, zooms.dropFirst()).allSatisfy { $0 <= $1 } && zooms.last == 12)
    let still = zoomIn.state(atProgress: 0.5).geoCenter
    #expect(abs(still.latitude - 10) < 1e-12 && abs(still.longitude - 20) < 1e-12) // degrees: the Mercator round trip
    // Fiji to Samoa goes east across the antimeridian, not round the world.
    let fiji = try camera(-17.7, 178.0, zoom: 6), samoa = try camera(-13.8, -172.1, zoom: 6)
    let hop = try CameraTransition(from: fiji, to: samoa, animation: .linear, duration: .seconds(1))
    for i in 0...20 {
        let lon = hop.state(atProgress: Double(i) / 20).geoCenter.longitude
        #expect(lon >= 178.0 || lon <= -172.1, "\(lon)")
    }
    #expect(throws: MapCameraError.self) { try CameraTransition(from: a, to: b, animation: .bow, duration: .seconds(-1)) }
    #expect(throws: MapCameraError.self) { try CameraTransition(from: a, to: b, animation: .bow, duration: .seconds(100_000)) }
    let other = try camera(10, 20, zoom: 4, view: try ViewSize(width: 10, height: 10))
    #expect(throws: MapCameraError.self) { try CameraTransition(from: a, to: other, animation: .bow) }
}

/// Frames at 1/fps steps from the start state, then the end exactly: a 3 s bow at 30 fps is
/// t = 0 … 89/30 and 3, the last the destination; a jump shown over 0.1 s at 30 fps is three
/// destination frames and the end.
@Test func frames_stepAtTheRate_andEndExactlyAtTheDestination() throws {
    let (move, _) = try tokyoOsaka(.bow)
    let frames = Array(move.frames(perSecond: 30))
    #expect(frames.count == 91)
    #expect(frames.first?.t == 0 && frames.first?.state == move.start)
    #expect(frames[45].t == 1.5 && frames[45].state == move.state(atElapsed: .milliseconds(1500)))
    #expect(frames.last?.t == 3 && frames.last?.state == move.destination)
    let jump = try CameraTransition(from: move.start, to: move.destination, animation: .none)
    let shown = Array(jump.frames(perSecond: 30, spanning: .milliseconds(100)))
    let times: [Double] = [0, 1.0 / 30, 2.0 / 30, 0.1]
    #expect(shown.map(\.t) == times)
    #expect(shown.allSatisfy { $0.state == move.destination })
    let instant: [Double] = [0]
    #expect(Array(jump.frames(perSecond: 30)).map(\.t) == instant, "a jump over no time: its one end frame")
}
