import Foundation

/// Settings of the mel filterbank and the MFCCs computed from the shared STFT.
public struct MelConfiguration: Sendable, Hashable, Codable {
    /// Number of mel bands. Default 40 (Slaney's Auditory Toolbox uses 40 filters; 40 is also
    /// the common choice for MFCC-based timbre features).
    public var bandCount: Int = 40
    /// Lower edge of the lowest filter, Hz. Default 30 (below the lowest musical fundamentals
    /// that matter for timbre; the 10.8 Hz bins resolve nothing finer anyway).
    public var minFrequency: Double = 30
    /// Upper edge of the highest filter, Hz. Default 11 000 (just below the 11 025 Hz Nyquist
    /// frequency of the 22.05 kHz analysis signal). Clamped to the Nyquist frequency.
    public var maxFrequency: Double = 11_000
    /// Number of MFCCs kept, `c0` (overall level) included. Default 13 (Davis & Mermelstein
    /// 1980 keep 10; 13 with `c0` is the usual choice since). Clamped to `1 ... bandCount`.
    public var coefficientCount: Int = 13
    /// STFT frames mean-pooled into one stored vector. Default 4 (46 ms, 21.5 vectors/s at the
    /// default STFT settings): `(bandCount + coefficientCount) * 4` bytes per vector, 16.4 MB
    /// per hour of audio with the defaults (49 MB for 3 hours). 1 keeps every frame (66 MB per
    /// hour).
    public var framesPerVector: Int = 4
    /// Energy floor of the log compression, in the units of the band energies (normalised power,
    /// a full-scale sine's peak bin has power 1). Default 1e-8 (-80 dB): the stored value
    /// `log10(1 + E / energyFloor)` is 0 for silence and about `log10(E) + 8` above the floor.
    public var energyFloor: Float = 1e-8
    /// Most decibels the floor lies under the loudest band energy so far (default 55; 0 keeps
    /// `energyFloor` fixed). A recording mastered quietly keeps the detail of a loud one: with
    /// the fixed floor, 24 dB less gain pressed its quiet bands onto the floor and their
    /// variation, which the vocal variance and the timbre of sections read, went with it. The
    /// loudest band energy of the real dev set's recordings is −26 to −12 dB, so the floor stays at
    /// `energyFloor` for every one of them but the quietest (docs/analyses/instrument-activity.md,
    /// "Quiet recordings").
    public var floorBelowLoudest: Float = 55

    /// The default configuration.
    public init() {}
}

/// Log mel band energies and mel-frequency cepstral coefficients (MFCCs) over time, the timbre
/// description used by structure analysis.
///
/// Method (S. B. Davis & P. Mermelstein, "Comparison of parametric representations for
/// monosyllabic word recognition in continuously spoken sentences", IEEE Trans. ASSP 28(4),
/// 1980, sec. II; filterbank as in M. Slaney, "Auditory Toolbox", Interval Research Technical
/// Report 1998-010, `mfcc.m` and `fft2melmx`):
///
/// 1. The power spectrum (magnitudes scaled by `2 / sum(window)` = `4 / frameSize`, so a
///    full-scale sine's peak bin has power 1) is weighted by `bandCount` triangular filters
///    whose edges are equally spaced on Slaney's mel scale (linear, 200/3 Hz per mel, below
///    1 kHz; logarithmic, a factor 6.4 per 27 mel, above) between the configured limits; each
///    filter has unit area over the bins (Slaney's equal-area normalisation), so a band's energy
///    is the weighted mean power per bin in it and white noise gives equal energies in all bands.
///    A filter narrower than one bin gets the single nearest bin.
/// 2. Band energies are compressed to `log10(1 + E / F)` (bels above the floor), where the floor
///    `F` is `energyFloor` or, when lower, `floorBelowLoudest` dB under the loudest band energy
///    so far (so the compression follows the recording's gain below a loud master's level).
/// 3. The MFCCs are the orthonormal DCT-II of the compressed band energies,
///    `c_n = w_n * sum_m x_m cos(pi n (m + 1/2) / M)` with `w_0 = sqrt(1/M)`, `w_n = sqrt(2/M)`
///    (librosa's `norm="ortho"`); `c_0` is kept.
///
/// Vectors are mean-pooled over `framesPerVector` STFT frames; since the DCT is linear the
/// stored MFCCs are exactly the DCT of the stored (pooled) band values.
public struct MelFeatures: Sendable {
    /// Vectors per second (the STFT frame rate divided by `framesPerVector`).
    public var frameRate: Double
    /// STFT frames pooled into each vector; vector `i` covers frames
    /// `i * framesPerVector ..< (i + 1) * framesPerVector` (the last one possibly fewer).
    public var framesPerVector: Int
    /// Number of mel bands per vector.
    public var bandCount: Int
    /// Number of MFCCs per vector.
    public var coefficientCount: Int
    /// Centre frequency of each mel band, Hz, ascending.
    public var bandCentres: [Double]
    /// Compressed band energies `log10(1 + E / energyFloor)`, `bandCount` per vector,
    /// vector-major, lowest band first; empty when only the MFCCs were computed
    /// (``Feature/mfcc``, which keeps 13 instead of 53 values per vector).
    public var bands: [Float]
    /// MFCCs `c_0 ... c_(coefficientCount-1)`, `coefficientCount` per vector, vector-major, in
    /// the units of `bands` (orthonormal DCT).
    public var mfcc: [Float]

    /// Creates mel features from their parts.
    public init(
        frameRate: Double, framesPerVector: Int, bandCount: Int, coefficientCount: Int,
        bandCentres: [Double], bands: [Float], mfcc: [Float]
    ) {
        self.frameRate = frameRate
        self.framesPerVector = framesPerVector
        self.bandCount = bandCount
        self.coefficientCount = coefficientCount
        self.bandCentres = bandCentres
        self.bands = bands
        self.mfcc = mfcc
    }

    /// Number of vectors.
    public var count: Int {
        if !bands.isEmpty { return bandCount > 0 ? bands.count / bandCount : 0 }
        return coefficientCount > 0 ? mfcc.count / coefficientCount : 0
    }

    /// Start time in seconds of the span vector `i` summarises (its first frame's centre).
    public func startTime(ofVector i: Int) -> Double { Double(i) / frameRate }

    /// The band values as a frame feature (for `FrameFeature.aggregated(between:using:)`);
    /// each vector spans its frames' centres ± half a hop.
    public var bandFeature: FrameFeature {
        FrameFeature(
            values: bands, dimension: bandCount, frameRate: frameRate,
            startTime: -0.5 / (frameRate * Double(framesPerVector)))
    }

    /// The MFCCs as a frame feature (for `FrameFeature.aggregated(between:using:)`).
    public var mfccFeature: FrameFeature {
        FrameFeature(
            values: mfcc, dimension: coefficientCount, frameRate: frameRate,
            startTime: -0.5 / (frameRate * Double(framesPerVector)))
    }
}

/// Slaney's mel scale (Auditory Toolbox; librosa `htk=False`): linear below 1 kHz, logarithmic
/// above.
enum SlaneyMel {
    private static let linearStep = 200.0 / 3  // Hz per mel below 1 kHz
    private static let breakFrequency = 1000.0
    private static let breakMel = breakFrequency / linearStep  // 15
    private static let logStep = log(6.4) / 27  // natural log of the frequency ratio per mel

    /// Mel value of frequency `hz`.
    static func mel(_ hz: Double) -> Double {
        hz < breakFrequency ? hz / linearStep : breakMel + log(hz / breakFrequency) / logStep
    }

    /// Frequency in Hz of mel value `m`.
    static func hz(_ m: Double) -> Double {
        m < breakMel ? m * linearStep : breakFrequency * exp(logStep * (m - breakMel))
    }
}

/// Computes the mel band energies and MFCCs frame by frame, streaming.
///
/// Per frame: one sparse filterbank pass (each bin below the top edge enters at most two
/// filters, about 2000 multiply-adds) and `bandCount` logarithms; the DCT runs once per stored
/// vector. State: one pooling accumulator of `bandCount` values; nothing is allocated per frame.
final class MelBandAccumulator: SpectralFrameConsumer {
    private let configuration: FeatureConfiguration
    private let settings: MelConfiguration
    private let bandCount: Int
    private let coefficientCount: Int
    private let framesPerVector: Int
    private let powerScale: Float  // (4 / frameSize)², magnitude² → normalised power
    private let floor: FollowingLevel  // the compression floor, dB of band energy
    private var loudest: Float = 0  // loudest band energy so far
    private let inverseFixedFloor: Float  // 1 / energyFloor
    private var inverseFloor: Float  // 1 / the floor at `loudest`, in band-energy units
    private var energies: [Float]  // the current frame's band energies
    // Sparse filterbank: band b covers bins bandStart[b] ..< bandStart[b] + bandLength[b],
    // weights at weights[weightOffset[b] ...].
    private var bandStart: [Int] = []
    private var bandLength: [Int] = []
    private var weightOffset: [Int] = []
    private var weights: [Float] = []
    private var centres: [Double] = []
    private let dct: [Float]  // coefficientCount × bandCount, row-major
    // State and outputs.
    private var pooled: [Float]
    private var pooledFrames = 0
    private var bands = ChunkedFloats()
    private var mfcc = ChunkedFloats()
    private let keepsBands: Bool

    /// Creates the accumulator; with `keepsBands` false only the MFCCs are stored (the band
    /// energies are computed per vector all the same, as the MFCCs' input, and then dropped).
    init(configuration: FeatureConfiguration, settings: MelConfiguration = .init(), keepsBands: Bool = true) {
        self.configuration = configuration
        self.settings = settings
        self.keepsBands = keepsBands
        bandCount = max(1, settings.bandCount)
        coefficientCount = max(1, min(settings.coefficientCount, bandCount))
        framesPerVector = max(1, settings.framesPerVector)
        let scale = 4 / Float(configuration.frameSize)
        powerScale = scale * scale
        // At most 60 dB under `energyFloor`, so near-silence (dither) keeps a floor.
        let fixed = 10 * log10(max(settings.energyFloor, .leastNormalMagnitude))
        floor = FollowingLevel(fixed: fixed, depth: max(0, min(settings.floorBelowLoudest, 200)), lowest: fixed - 60)
        inverseFixedFloor = 1 / max(settings.energyFloor, .leastNormalMagnitude)
        inverseFloor = inverseFixedFloor
        pooled = [Float](repeating: 0, count: bandCount)
        energies = [Float](repeating: 0, count: bandCount)
        dct = Self.dctTable(coefficients: 0..<coefficientCount, bands: bandCount)
        buildFilterbank()
    }

    /// Rows `coefficients` of the orthonormal DCT-II of `bands` values, row-major
    /// (`c_n = w_n Σ_m x_m cos(π n (m + ½) / M)`, `w_0 = √(1/M)`, `w_n = √(2/M)`): the MFCC
    /// transform, also used for the cepstrum of a band subset (``ActivityFrames/vocalVariance``).
    static func dctTable(coefficients: Range<Int>, bands m: Int) -> [Float] {
        var table: [Float] = []
        table.reserveCapacity(coefficients.count * m)
        for n in coefficients {
            let w = n == 0 ? (1 / Double(m)).squareRoot() : (2 / Double(m)).squareRoot()
            for j in 0..<m { table.append(Float(w * cos(Double.pi * Double(n) * (Double(j) + 0.5) / Double(m)))) }
        }
        return table
    }

    private func buildFilterbank() {
        let binCount = configuration.binCount
        let binWidth = configuration.binWidth
        let nyquist = configuration.sampleRate / 2
        let fMax = min(max(settings.maxFrequency, 1), nyquist)
        let fMin = min(max(settings.minFrequency, 0), fMax * 0.99)
        let melLow = SlaneyMel.mel(fMin), melHigh = SlaneyMel.mel(fMax)
        let edges = (0...(bandCount + 1)).map { i in
            SlaneyMel.hz(melLow + (melHigh - melLow) * Double(i) / Double(bandCount + 1))
        }
        for b in 0..<bandCount {
            let lo = edges[b], mid = edges[b + 1], hi = edges[b + 2]
            centres.append(mid)
            let first = max(0, Int((lo / binWidth).rounded(.up)))
            let last = min(binCount - 1, Int((hi / binWidth).rounded(.down)))
            var w: [Float] = []
            var start = first
            if first <= last {
                for k in first...last {
                    let f = Double(k) * binWidth
                    let up = (f - lo) / max(mid - lo, 1e-9), down = (hi - f) / max(hi - mid, 1e-9)
                    w.append(Float(max(0, min(up, down))))
                }
            }
            // Trim zero weights at the ends.
            while let l = w.last, l == 0 { w.removeLast() }
            while let f = w.first, f == 0 { w.removeFirst(); start += 1 }
            let area = w.reduce(0, +)
            if area > 0 {
                for j in w.indices { w[j] /= area }
            } else {
                // Narrower than a bin: the nearest bin stands for the filter.
                start = min(binCount - 1, max(0, Int((mid / binWidth).rounded())))
                w = [1]
            }
            bandStart.append(start)
            bandLength.append(w.count)
            weightOffset.append(weights.count)
            weights.append(contentsOf: w)
        }
    }

    func consume(_ frame: SpectralFrame) {
        let scale = powerScale
        var frameLoudest: Float = 0
        frame.magnitude.withUnsafeBufferPointer { mag in
            weights.withUnsafeBufferPointer { w in
                energies.withUnsafeMutableBufferPointer { out in
                    for b in 0..<bandCount {
                        let start = bandStart[b], off = weightOffset[b]
                        let n = min(bandLength[b], max(0, mag.count - start))
                        var e: Float = 0
                        for j in 0..<n {
                            let x = mag[start + j]
                            e += x * x * w[off + j]
                        }
                        e *= scale
                        // A non-finite magnitude must not poison the vector.
                        out[b] = e.isFinite ? e : 0
                        frameLoudest = max(frameLoudest, out[b])
                    }
                }
            }
        }
        if frameLoudest > loudest {
            loudest = frameLoudest
            let level = floor.level(loudest: 10 * log10(loudest))
            inverseFloor = level < floor.fixed ? Float(pow(10, -Double(level) / 10)) : inverseFixedFloor
        }
        let invFloor = inverseFloor
        energies.withUnsafeBufferPointer { e in
            pooled.withUnsafeMutableBufferPointer { acc in
                for b in 0..<bandCount { acc[b] += log10(1 + e[b] * invFloor) }
            }
        }
        pooledFrames += 1
        if pooledFrames == framesPerVector { flush() }
    }

    func finish() -> MelFeatures {
        if pooledFrames > 0 { flush() }
        return MelFeatures(
            frameRate: configuration.frameRate / Double(framesPerVector),
            framesPerVector: framesPerVector, bandCount: bandCount,
            coefficientCount: coefficientCount, bandCentres: centres, bands: bands.takeArray(), mfcc: mfcc.takeArray())
    }

    private func flush() {
        let inv = 1 / Float(pooledFrames)
        let m = bandCount
        for b in 0..<m { pooled[b] *= inv }
        if keepsBands { bands.append(contentsOf: pooled) }
        dct.withUnsafeBufferPointer { t in
            pooled.withUnsafeBufferPointer { x in
                for n in 0..<coefficientCount {
                    var c: Float = 0
                    for j in 0..<m { c += t[n * m + j] * x[j] }
                    mfcc.append(c)
                }
            }
        }
        for b in 0..<m { pooled[b] = 0 }
        pooledFrames = 0
    }
}
