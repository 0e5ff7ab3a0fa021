import Foundation

/// Pitch fluctuation of the tonal partials over time, at 10 values per second: the vocal cue of
/// the *fluctogram* (B. Lehner, G. Widmer & R. Sonnleitner, "On the reduction of false positives
/// in singing voice detection", ICASSP 2014, sec. 3.1). Singing moves its partials all the time
/// (vibrato of 4-8 Hz and ±0.3-1 semitone, glides, formant transitions of speech), while most
/// instruments hold their pitch within a note.
///
/// Method, per STFT frame: the magnitude spectrum between ``PitchFluctuationAccumulator/lowest``
/// and ``PitchFluctuationAccumulator/highest`` Hz is resampled to a log-frequency grid of 25
/// cents (linear interpolation of the bins), compressed to dB (floor −80 dB re full scale, lower
/// for a quiet recording: ``PitchFluctuationAccumulator/floor``) and
/// cut into overlapping one-octave subbands (half-octave hop). Each subband is compared with the
/// same subband two frames (23 ms) earlier by normalised cross-correlation over shifts of
/// ±4 grid steps (±100 cents); the shift of the correlation peak (parabolic interpolation) is
/// the subband's pitch motion. Subbands whose correlation peak is below 0.5 (onsets, noise
/// changing), whose spectrum is flat (no partials: peak-to-mean under 12 dB) or whose peak is
/// below ``PitchFluctuationAccumulator/gate`` are skipped. The floor and the gate
/// follow the loudest partial so far below a loud master's level, so a recording played 24 dB
/// quieter keeps its vocal cue (docs/analyses/instrument-activity.md, "Quiet recordings").
///
/// Stored per 100 ms frame `j` (STFT frames whose centre lies in `j/10 ..< (j+1)/10`):
/// `fluctuation[j]`, the energy-weighted mean absolute shift in cents per 23 ms over the used
/// subbands and frames, and `tonalShare[j]`, the share of subband comparisons that were used.
public struct PitchFluctuationFeatures: Sendable {
    /// Values per second (10).
    public var frameRate: Double
    /// Mean absolute pitch motion of the tonal partials, cents per 23 ms.
    public var fluctuation: [Float]
    /// Share (0...1) of subband comparisons with tonal, correlated content.
    public var tonalShare: [Float]

    /// Creates the features from their parts.
    public init(frameRate: Double, fluctuation: [Float], tonalShare: [Float]) {
        self.frameRate = frameRate
        self.fluctuation = fluctuation
        self.tonalShare = tonalShare
    }
}

/// Streams STFT frames into ``PitchFluctuationFeatures``, analysing every other frame; keeps
/// two log-frequency frames (about 1.5 kB) and the 10 Hz output (8 bytes per 100 ms, 2.3 MB for 3 hours).
final class PitchFluctuationAccumulator: SpectralFrameConsumer {
    /// Lowest frequency of the grid, Hz.
    static let lowest = 300.0
    /// Highest frequency of the grid, Hz.
    static let highest = 4800.0
    private static let stepCents = 25.0
    private static let maxShift = 4
    private static let subband = 48  // grid points per subband (one octave)
    private static let subbandHop = 24

    private let frameRate: Double
    private let scale: Float
    private let binPosition: [Float]  // fractional bin of each grid point
    private var grids: [Float]  // the last two log-frequency frames, alternating halves
    private var power: [Float]  // the current frame's grid as power, 10^(dB/10)
    private var analysed = 0  // frames analysed so far
    private var weightedShift: [Float] = []
    private var weights: [Float] = []
    private var used: [Float] = []
    private var tried: [Float] = []
    private var frameIndex = 0
    // Loudest grid value so far, dB re full scale (``gate``, ``floor``).
    private var reference: Float = -.infinity

    /// Level a subband's peak must exceed to be compared, dB re full scale: −60, or 40 dB under
    /// the loudest grid value so far when that is lower (a quietly mastered recording is read as
    /// one whose loudest partial peaks at −20 dB).
    static let gate = FollowingLevel(fixed: -60, depth: 40)

    /// Floor of the grid, dB re full scale: −80, or 60 dB under the loudest grid value so far
    /// when that is lower (at most 160 dB down).
    static let floor = FollowingLevel(fixed: -80, depth: 60, lowest: -160)

    init(configuration: FeatureConfiguration) {
        frameRate = configuration.frameRate
        scale = 4 / Float(max(1, configuration.frameSize))
        let points = Int((1200 * log2(Self.highest / Self.lowest) / Self.stepCents).rounded(.down)) + 1
        let binWidth = configuration.binWidth
        binPosition = (0..<points).map { i in
            Float(Self.lowest * pow(2, Double(i) * Self.stepCents / 1200) / binWidth)
        }
        grids = [Float](repeating: -80, count: 2 * binPosition.count)
        power = [Float](repeating: 0, count: binPosition.count)
    }

    func consume(_ frame: SpectralFrame) {
        let t = Double(frameIndex) / frameRate
        frameIndex += 1
        let j = Int(t * 10)
        while weights.count <= j {
            weightedShift.append(0); weights.append(0); used.append(0); tried.append(0)
        }
        // Every other frame is analysed, each against the previous analysed one (23 ms back):
        // half the cost, the same comparison lag.
        guard (frameIndex - 1) % 2 == 0 else { return }
        let m = frame.magnitude
        let count = binPosition.count
        // The two log-frequency frames alternate between the halves of `grids`; nothing is
        // allocated per frame.
        let current = analysed % 2, previousHalf = 1 - current
        analysed += 1
        var loudest: Float = 0
        grids.withUnsafeMutableBufferPointer { g in
            let base = current * count
            for i in 0..<count {
                let position = binPosition[i]
                let k = Int(position)
                guard k >= 0, k + 1 < m.count else { g[base + i] = 0; continue }
                let a = position - Float(k)
                let v = ((1 - a) * m[k] + a * m[k + 1]) * scale
                let finite = v.isFinite ? max(0, v) : 0
                g[base + i] = finite
                loudest = max(loudest, finite)
            }
        }
        if loudest > 0 { reference = max(reference, 20 * log10(loudest)) }
        let floor = Self.floor.level(loudest: reference), floorAmplitude = Float(pow(10, Double(floor) / 20))
        grids.withUnsafeMutableBufferPointer { g in
            power.withUnsafeMutableBufferPointer { pw in
                let base = current * count
                for i in 0..<count {
                    let v = max(g[base + i], floorAmplitude)
                    g[base + i] = 20 * log10(v)
                    pw[i] = v * v  // 10^(dB/10), without the exponential
                }
            }
        }
        let gate = Self.gate.level(loudest: reference)
        guard analysed >= 2 else { return }
        grids.withUnsafeBufferPointer { g in
            power.withUnsafeBufferPointer { pw in
                let x = UnsafeBufferPointer(rebasing: g[(current * count)..<(current * count + count)])
                let y = UnsafeBufferPointer(rebasing: g[(previousHalf * count)..<(previousHalf * count + count)])
                var start = 0
                while start + Self.subband <= count {
                    tried[j] += 1
                    defer { start += Self.subbandHop }
                    let end = start + Self.subband
                    var peak: Float = -.infinity, mean: Float = 0
                    for i in start..<end {
                        let d = x[i]
                        peak = max(peak, d)
                        mean += d
                    }
                    mean /= Float(Self.subband)
                    guard peak - mean >= 12, peak > gate else { continue }
                    var energy: Float = 0
                    for i in start..<end { energy += pw[i] }
                    // Normalised cross-correlation of the mean-removed subbands over the shifts,
                    // from one pass of sums per shift (Σx, Σy, Σxy, Σx², Σy² over the overlap).
                    var best = -Float.infinity, bestShift = 0
                    var rho: (Float, Float, Float, Float, Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
                    withUnsafeMutableBytes(of: &rho) { raw in
                        let r = raw.bindMemory(to: Float.self)
                        for shift in -Self.maxShift...Self.maxShift {
                            let lo = max(start, shift), hi = min(end, count + shift)
                            let c = Float(hi - lo)
                            guard c > 8 else { continue }
                            var sx: Float = 0, sy: Float = 0, sxy: Float = 0, sxx: Float = 0, syy: Float = 0
                            for i in lo..<hi {
                                let u = x[i] - mean, v = y[i - shift] - mean  // offset for conditioning
                                sx += u; sy += v; sxy += u * v; sxx += u * u; syy += v * v
                            }
                            let xy = sxy - sx * sy / c, xx = sxx - sx * sx / c, yy = syy - sy * sy / c
                            let value = xx > 0 && yy > 0 ? xy / (xx * yy).squareRoot() : 0
                            r[shift + Self.maxShift] = value
                            if value > best { best = value; bestShift = shift }
                        }
                        guard best >= 0.5 else { return }
                        var shift = Float(bestShift)
                        let bi = bestShift + Self.maxShift
                        if bi > 0 && bi < r.count - 1 {
                            let l = r[bi - 1], c = r[bi], rr = r[bi + 1]
                            let d = l - 2 * c + rr
                            if d < 0 { shift += max(-0.5, min(0.5, 0.5 * (l - rr) / d)) }
                        }
                        let cents = abs(shift) * Float(Self.stepCents)
                        weightedShift[j] += energy * cents
                        weights[j] += energy
                        used[j] += 1
                    }
                }
            }
        }
    }

    func finish() -> PitchFluctuationFeatures {
        let n = weights.count
        var fluctuation = [Float](repeating: 0, count: n), share = fluctuation
        for j in 0..<n {
            fluctuation[j] = weights[j] > 0 ? weightedShift[j] / weights[j] : 0
            share[j] = tried[j] > 0 ? used[j] / tried[j] : 0
        }
        return PitchFluctuationFeatures(frameRate: 10, fluctuation: fluctuation, tonalShare: share)
    }
}
