import GeoCore
import Platform

extension KalmanSmoother {
    /// How many triples on each side of a step its local process noise is estimated from.
    static let processNoiseNeighbourhood = 32

    /// The quantile of the triples' estimates taken as the local process noise: robust to a
    /// quarter of them holding a jump, yet it follows the turns that bend a quarter of a trail.
    static let processNoiseQuantile = 0.75

    /// The least process noise the estimate gives, as a fraction of the model's own density.
    static let leastProcessNoise = 1e-3

    /// The white-acceleration spectral density (m²/s³, the square of `accelerationNoise`) the
    /// kept fixes show around each step, between a thousandth of the model's own and the
    /// model's own (the model's where too few triples are near): element k is for the step
    /// from fix k − 1 to fix k.
    ///
    /// A preset's model is a guess at the mode of travel. A hike logged every 10 s under the
    /// default 1 m/s² model lets every fix pull the track (σ ≈ 18 m of motion per step against
    /// 5 m of noise), so noise, stops and jumps between sparse fixes all add length (issue 34
    /// §2: `geo gpx smooth` 19.9 % too long; `geo eval filters --cases wide`). The fixes say how
    /// agile the track is: the middle fix of a triple (i, k, j) deviates from the chord between
    /// its neighbours by d, and under white acceleration q alone each axis of d has variance
    /// q T³ f² (1 − f)² / 3 (T = tⱼ − tᵢ, f = (tₖ − tᵢ) / T: the integrated Wiener process
    /// conditioned on both ends, Bar-Shalom, Li & Kirubarajan 2001, §6.2.2, the spread `offLine`
    /// tests), so |d|² over that is χ² with 2 degrees of freedom, whose p-quantile is
    /// −2 ln(1 − p). Each triple gives q = |d|² / (−2 ln(1 − p)) / (T³ f² (1 − f)² / 3), exact
    /// in the p-quantile for triples alike. The fixes' noise is left in d, not subtracted: GNSS
    /// error is correlated over tens of seconds, so across a triple it is far below what the
    /// fixes claim (sparseHike every 10 s: 6 m² per axis of d against 42 m² claimed), and
    /// subtracting the claim took every turn for noise (cerknica every 10 s: 6 % too short).
    /// Left in, the estimate is an upper bound on the motion: the model gets no calmer than the
    /// scatter shows. The neighbours lie at least h = (6 vₖ / q₀)^(1/3) from the middle (vₖ the
    /// fix's claimed per-axis variance, q₀ the model's density: the span over which the
    /// model's own motion is as large as the claimed noise), so motion shows at 1 Hz too. The
    /// quantile over `processNoiseNeighbourhood` triples either side is robust to the jumps
    /// they hold, and local, so a fixed-lag window gets the whole track's values wherever that
    /// neighbourhood lies inside it (`SmoothingWindow`).
    /// - Parameters:
    ///   - fixes: the kept fixes, in time order; `starts`: where a segment starts (no triple
    ///     spans a start).
    /// - Complexity: O(n (N log N + h / Δt)), N the neighbourhood, Δt the fix interval.
    func processNoise(_ fixes: [Location], starts: [Bool]) -> [Double] {
        let cap = parameters.accelerationNoise * parameters.accelerationNoise
        guard fixes.count >= 3, cap > 0 else { return [Double](repeating: cap, count: fixes.count) }
        let frame = LocalFrame(origin: fixes[0].coordinate)
        let points = fixes.map { l -> Vec2 in let p = frame.point(for: l.coordinate); return Vec2(x: p.east, y: p.north) }
        let times = fixes.map { $0.timestamp.timeIntervalSince(fixes[0].timestamp) }
        let chi = -2 * log(1 - Self.processNoiseQuantile)
        // Each fix's segment, so that triples stay inside one.
        var segment = [Int](repeating: 0, count: fixes.count)
        for k in 1..<fixes.count { segment[k] = segment[k - 1] + (starts[k] ? 1 : 0) }
        var estimates = [Double?](repeating: nil, count: fixes.count)
        for k in fixes.indices {
            let span = cbrt(6 * positionVariance(of: fixes[k]) / cap)
            var i = k - 1
            while i >= 0, segment[i] == segment[k], times[k] - times[i] < span { i -= 1 }
            var j = k + 1
            while j < fixes.count, segment[j] == segment[k], times[j] - times[k] < span { j += 1 }
            guard i >= 0, j < fixes.count, segment[i] == segment[k], segment[j] == segment[k] else { continue }
            let t = times[j] - times[i]
            let f = (times[k] - times[i]) / t
            let d = points[k] - (points[i] + (points[j] - points[i]) * f)
            estimates[k] = (d.x * d.x + d.y * d.y) / chi / (t * t * t * f * f * (1 - f) * (1 - f) / 3)
        }
        var out = [Double](repeating: cap, count: fixes.count)
        var local: [Double] = []
        local.reserveCapacity(2 * Self.processNoiseNeighbourhood + 1)
        let n = Self.processNoiseNeighbourhood
        for k in fixes.indices {
            local.removeAll(keepingCapacity: true)
            for m in max(0, k - n)...min(fixes.count - 1, k + n) {
                if let e = estimates[m] { local.append(e) }
            }
            guard local.count > n / 2 else { continue }
            local.sort()
            let q = local[min(local.count - 1, Int(Self.processNoiseQuantile * Double(local.count)))]
            out[k] = min(max(q, cap * Self.leastProcessNoise), cap)
        }
        return out
    }

    /// The speed below which the smoother takes a device for still, m/s: the walking presets'
    /// `StationaryRule` threshold.
    static let stillSpeed = StationaryRule.Parameters.walkingStillSpeed.metersPerSecond

    /// Which fixes the device was still at: the mean of the fixes just before a fix (it
    /// included) and the mean of those just after it (it included) are closer than the median
    /// of what the noise of two fixes puts between them, |Δ|² < 2 v χ²₂(0.5) (v the fix's
    /// claimed per-axis variance; not divided by the fixes' count, since GNSS error is
    /// correlated over tens of seconds). The windows reach w = √(2 v χ²₂(0.5)) / `stillSpeed`
    /// and are widened (up to 2 w, the nearer fix first) until their mean times lie w apart, so
    /// a device moving steadily faster than `stillSpeed` is not still however sparse its
    /// fixes (windows of w alone put the means 20 s apart at 10 s fixes: walking below
    /// 0.44 m/s was still). A fix without a neighbour on each side within w, or whose windows
    /// cannot be widened enough (in its segment), is not still.
    /// - Parameter starts: where a segment starts (no window spans a start).
    /// - Complexity: O(n w / Δt), Δt the fix interval.
    func stillness(_ fixes: [Location], starts: [Bool]) -> [Bool] {
        let n = fixes.count
        guard n >= 3 else { return [Bool](repeating: false, count: n) }
        let frame = LocalFrame(origin: fixes[0].coordinate)
        let times = fixes.map { $0.timestamp.timeIntervalSince(fixes[0].timestamp) }
        var segment = [Int](repeating: 0, count: n)
        for k in 1..<n { segment[k] = segment[k - 1] + (starts[k] ? 1 : 0) }
        // Prefix sums of the positions, for the mean over any run of fixes.
        var sums = [Vec2](repeating: .zero, count: n + 1)
        for k in 0..<n {
            let p = frame.point(for: fixes[k].coordinate)
            sums[k + 1] = sums[k] + Vec2(x: p.east, y: p.north)
        }
        var timeSums = [Double](repeating: 0, count: n + 1)
        for k in 0..<n { timeSums[k + 1] = timeSums[k] + times[k] }
        func mean(_ r: Range<Int>) -> Vec2 { (sums[r.upperBound] - sums[r.lowerBound]) * (1 / Double(r.count)) }
        func meanTime(_ r: Range<Int>) -> Double { (timeSums[r.upperBound] - timeSums[r.lowerBound]) / Double(r.count) }
        let chi = 2 * log(2.0)
        var still = [Bool](repeating: false, count: n)
        for k in 0..<n {
            let gate = 2 * positionVariance(of: fixes[k]) * chi
            let w = gate.squareRoot() / Self.stillSpeed
            var i = k
            while i > 0, segment[i - 1] == segment[k], times[k] - times[i - 1] <= w { i -= 1 }
            var j = k
            while j + 1 < n, segment[j + 1] == segment[k], times[j + 1] - times[k] <= w { j += 1 }
            guard i < k, j > k else { continue }
            // Sparse fixes put the windows' mean times closer than w: widen them (up to 2 w,
            // the nearer fix first) until a device at `stillSpeed` covers the gate between them.
            func separation() -> Double { meanTime(k..<(j + 1)) - meanTime(i..<(k + 1)) }
            while separation() < w {
                let back = i > 0 && segment[i - 1] == segment[k] && times[k] - times[i - 1] <= 2 * w
                let ahead = j + 1 < n && segment[j + 1] == segment[k] && times[j + 1] - times[k] <= 2 * w
                if back, !ahead || times[k] - times[i - 1] <= times[j + 1] - times[k] {
                    i -= 1
                } else if ahead {
                    j += 1
                } else {
                    break
                }
            }
            guard separation() >= w else { continue }
            let d = mean(k..<(j + 1)) - mean(i..<(k + 1))
            still[k] = d.x * d.x + d.y * d.y < gate
        }
        return still
    }
}

