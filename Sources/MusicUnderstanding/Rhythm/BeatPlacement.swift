import Foundation

/// The beat-placement step of the rhythm chain: each decoded beat moves to the onset peak in
/// its beat-state window (madmom's `correct` step of the DBN beat tracker), with parabolic
/// interpolation and onto the peak's rising edge (Vos & Rasch 1981; Bello et al. 2005), and is
/// then placed by the onsets of its neighbours with a robust local line (LOWESS, Cleveland
/// 1979; the measurement precision of Cemgil et al. 2001).
extension RhythmAnalyzer {
    /// Beat times, seconds, of `beats`: each moved to its onset (``refine(_:curve:radius:frameRate:clusterSeconds:)``,
    /// with the onset cluster of ``Configuration/PlacementSettings/onsetClusterSeconds`` scaled by how legato the
    /// texture is, 1 − `impulsiveShare`), shifted by ``Configuration/PlacementSettings/latency``, and smoothed
    /// (``smoothBeatTimes(_:weights:)``) with each beat weighted by its onset peak on `curve`.
    func placeBeats(_ beats: TrackedBeats, curve: [Float], frameRate fps: Double, impulsiveShare impulsive: Float) -> [Double] {
        let radius = beats.radius
        // Each beat moves to the onset peak inside its beat-state window: the decoder scores every
        // placement of the window over a peak alike, so the decoded beat may be up to τ / λ frames
        // off it (madmom's `correct` step of the DBN beat tracker does the same).
        let clusterSeconds = configuration.placement.onsetClusterSeconds * Double(1 - impulsive)
        let onsetTimes = beats.frames.map {
            max(0, refine($0, curve: curve, radius: radius, frameRate: fps, clusterSeconds: clusterSeconds) / fps + configuration.placement.latency)
        }
        // Each beat's onset peak weighs its time in the smoothing: a clear onset places a beat
        // more precisely than a faint one.
        let peaks = onsetPeaks(at: beats.frames, curve: curve, radius: radius).map(Double.init)
        return smoothBeatTimes(onsetTimes, weights: peaks)
    }

    /// Moves a beat to the largest onset peak within `radius` (at least `refinementRadius`) frames, with parabolic
    /// interpolation of the peak; returns the fractional frame. A peak on the first or last frame
    /// (an onset at t = 0) is taken as it is.
    func refine(_ frame: Int, curve: [Float], radius: Int, frameRate: Double, clusterSeconds: Double) -> Double {
        let r = max(configuration.placement.refinementRadius, radius)
        guard r > 0, frame >= 0, frame < curve.count else { return Double(frame) }
        let best = PeakPicking.largest(curve, near: frame, radius: r)
        guard curve[best] > 0 else { return Double(frame) }
        if best == 0 || best == curve.count - 1 { return Double(best) }
        guard curve[best] >= curve[best - 1], curve[best] >= curve[best + 1] else { return Double(frame) }
        let offset = PeakPicking.parabolicOffset(Double(curve[best - 1]), Double(curve[best]), Double(curve[best + 1])) ?? 0
        let peak = Double(best) + max(-0.5, min(0.5, offset))
        // The rising edge: where the curve, walking back from the peak (through its onset
        // cluster of up to `clusterSeconds`: `Configuration.onsetClusterSeconds` already scaled
        // by the texture, 0 for none) to its local minimum
        // (at most 12 frames before the peak in all), crosses `onsetRiseFraction` of the rise; compensated so
        // that an impulse lands on the peak, and never after it.
        if configuration.placement.onsetRiseFraction > 0 {
            var low = best
            // An onset cluster: frames within `clusterSeconds` before the peak that stay at or
            // above `onsetClusterLevel` of it belong to the same onset.
            let span = Int((clusterSeconds * frameRate).rounded())
            let clusterLevel = Float(configuration.placement.onsetClusterLevel) * curve[best]
            while low > 0, best - low < span, curve[low - 1] >= clusterLevel { low -= 1 }
            while low > 0, best - low < 12, curve[low - 1] < curve[low] { low -= 1 }
            if low < best {
                let level = curve[low] + Float(configuration.placement.onsetRiseFraction) * (curve[best] - curve[low])
                var j = low + 1
                while j < best, curve[j] < level { j += 1 }
                let rise = curve[j] - curve[j - 1]
                let f = rise > 0 ? Double((level - curve[j - 1]) / rise) : 1
                return min(peak, Double(j - 1) + max(0, min(1, f)) + configuration.placement.onsetRiseCompensation * frameRate)
            }
        }
        return peak
    }

    /// Places each beat by the onsets of its neighbours: a beat is a regular pulse that a
    /// listener infers from many onsets, and the onset of one note (a slow organ or string
    /// attack, a voice that speaks late) is a noisy observation of it. Each time becomes the value
    /// at its index of a locally weighted robust regression of the onset times on the beat
    /// index over ±``Configuration/PlacementSettings/beatSmoothingBeats`` beats: LOWESS (Cleveland 1979, "Robust
    /// locally weighted regression and smoothing scatterplots", JASA 74, sec. 2: tricube
    /// distance weights, two bisquare robustness iterations with residuals scaled by
    /// 6 × their median), with each observation also weighted by its onset peak, `weights`,
    /// relative to the median peak: the measurement precision of the Kalman-filter view of beat
    /// tracking (Cemgil, Kappen, Desain & Honing 2001, "On tempo tracking: tempogram
    /// representation and Kalman filtering", sec. 4).
    ///
    /// A local line assumes a steady tempo across its window; where the tempo bends inside it
    /// (strong rubato) its value at the centre is biased by the curvature and pulls the beats off
    /// their onsets. With ``Configuration/PlacementSettings/beatSmoothingDegree`` 2 (the default)
    /// the final fit is a local parabola (Cleveland & Devlin 1988, "Locally weighted regression: an
    /// approach to regression analysis by local fitting", JASA 83, sec. 2) where three things hold:
    /// the window is full on both sides (fitted one-sided, at the ends of a run, a parabola
    /// extrapolates its noise), the robustness weights have been found with lines (so the outliers
    /// are the line's, as before), and the curvature is significant (the quadratic coefficient at
    /// least two standard errors from 0, its residual variance from the weighted fit). Elsewhere
    /// the fit stays the line, so a steady pulse is smoothed as much as before.
    /// A gap (an interval over 1.5 × the median, where silent beats were removed) starts a new run,
    /// smoothed on its own. Steady clicks are unchanged (their onsets already lie on a line).
    func smoothBeatTimes(_ times: [Double], weights: [Double]) -> [Double] {
        let k = configuration.placement.beatSmoothingBeats
        guard k > 0, times.count >= 3, weights.count == times.count else { return times }
        var intervals: [Double] = []
        for i in 1..<times.count { intervals.append(times[i] - times[i - 1]) }
        let medianInterval = Smoothing.median(intervals) ?? 0
        guard medianInterval > 0 else { return times }
        let sortedWeights = weights.sorted()
        let medianWeight = sortedWeights[sortedWeights.count / 2]
        let precision = weights.map { w in medianWeight > 0 ? min(10, max(0.1, w / medianWeight)) : 1 }
        var out = times
        var start = 0
        while start < times.count {
            var end = start + 1
            while end < times.count, times[end] - times[end - 1] <= 1.5 * medianInterval { end += 1 }
            if end - start >= 3 {
                let run = Array(times[start..<end])
                let fit = lowess(run, precision: Array(precision[start..<end]), halfWidth: k)
                for i in 0..<run.count { out[start + i] = max(0, fit[i]) }
            }
            start = end
        }
        // The order of the beats is kept (a fit can only cross its neighbour at a far outlier).
        for i in 1..<out.count where out[i] <= out[i - 1] { out[i] = max(times[i], out[i - 1] + 1e-3) }
        return out
    }

    /// LOWESS of `y` on its index (see ``smoothBeatTimes(_:weights:)``).
    private func lowess(_ y: [Double], precision: [Double], halfWidth k: Int) -> [Double] {
        let n = y.count
        let quadratic = configuration.placement.beatSmoothingDegree >= 2
        let curvatureSignificance = 2.0
        var robustness = [Double](repeating: 1, count: n)
        var fit = y
        var weight = [Double](repeating: 0, count: 2 * k + 1)  // one window's weights, reused (`width` is at most `k`)
        /// The local fit at beat `i` over ±`width` beats: its intercept, or `y[i]` when singular.
        /// With `parabola`, the local parabola where its curvature is significant (its quadratic
        /// coefficient at least `curvatureSignificance` standard errors from 0), else the line.
        func localFit(_ i: Int, width: Int, parabola: Bool) -> Double {
            let lo = max(0, i - width), hi = min(n - 1, i + width)
            var s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, t0 = 0.0, t1 = 0.0, t2 = 0.0
            var used = 0
            for j in lo...hi {
                let x = Double(j - i)
                let d = abs(x) / Double(width + 1)
                let w = pow(1 - d * d * d, 3) * robustness[j] * precision[j]  // tricube × robustness × precision
                weight[j - lo] = w
                if w > 0 { used += 1 }
                s0 += w; s1 += w * x; s2 += w * x * x; s3 += w * x * x * x; s4 += w * x * x * x * x
                t0 += w * y[j]; t1 += w * x * y[j]; t2 += w * x * x * y[j]
            }
            // Only with the full window on both sides: one-sided, a parabola extrapolates its noise.
            if parabola, i - lo == width, hi - i == width, used > 3 {
                let det = s0 * (s2 * s4 - s3 * s3) - s1 * (s1 * s4 - s3 * s2) + s2 * (s1 * s3 - s2 * s2)
                if abs(det) > 1e-9 * max(1, s0 * s0 * s0) {
                    // The weighted quadratic by Cramer's rule on the 3 × 3 normal equations.
                    let c0 = (t0 * (s2 * s4 - s3 * s3) - s1 * (t1 * s4 - s3 * t2) + s2 * (t1 * s3 - s2 * t2)) / det
                    let c1 = (s0 * (t1 * s4 - s3 * t2) - t0 * (s1 * s4 - s3 * s2) + s2 * (s1 * t2 - t1 * s2)) / det
                    let c2 = (s0 * (s2 * t2 - t1 * s3) - s1 * (s1 * t2 - t1 * s2) + t0 * (s1 * s3 - s2 * s2)) / det
                    // Its standard error: the weighted residual variance times the (2, 2) element
                    // of the inverse normal matrix.
                    var residualSum = 0.0
                    for j in lo...hi {
                        let x = Double(j - i)
                        let r = y[j] - (c0 + c1 * x + c2 * x * x)
                        residualSum += weight[j - lo] * r * r
                    }
                    let variance = residualSum / Double(used - 3) * (s0 * s2 - s1 * s1) / det
                    if c2 * c2 >= curvatureSignificance * curvatureSignificance * max(0, variance) { return c0 }
                }
            }
            let det1 = s0 * s2 - s1 * s1
            return det1 > 1e-9 * max(1, s0 * s0) ? (s2 * t0 - s1 * t1) / det1 : y[i]
        }
        for iteration in 0...2 {
            // The robustness weights come from the lines; the parabola enters the final fit only.
            for i in 0..<n { fit[i] = localFit(i, width: k, parabola: quadratic && iteration == 2) }
            guard iteration < 2 else { break }
            let residuals = (0..<n).map { y[$0] - fit[$0] }
            let scale = 6 * max(1e-4, residuals.map(abs).sorted()[n / 2])
            robustness = residuals.map { r in
                let u = r / scale
                return abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0
            }
        }
        return fit
    }

    /// Median inter-beat interval, each interval averaged over up to 4 beats (sub-frame
    /// resolution); 0 with fewer than 2 beats.
    func medianInterval(_ beatTimes: [Double]) -> Double {
        guard beatTimes.count >= 2 else { return 0 }
        var spans: [Double] = []
        let step = min(4, beatTimes.count - 1)
        for i in 0..<(beatTimes.count - step) { spans.append((beatTimes[i + step] - beatTimes[i]) / Double(step)) }
        return Smoothing.median(spans) ?? 0
    }
}
