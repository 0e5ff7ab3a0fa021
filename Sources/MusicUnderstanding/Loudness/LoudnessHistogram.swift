import Foundation

/// Conversions between channel-weighted mean squares ("energies") and loudness.
enum LoudnessScale {
    /// Loudness in LUFS of a K-weighted, channel-weighted mean square (ITU-R BS.1770-4, eq. 2):
    /// `−0.691 + 10·log10(Σ G_i·z_i)`; minus infinity for zero energy.
    @inline(__always)
    static func loudness(ofEnergy energy: Double) -> Double {
        energy > 0 ? -0.691 + 10 * log10(energy) : -.infinity
    }

    /// The mean square whose loudness is `lufs` (inverse of ``loudness(ofEnergy:)``).
    @inline(__always)
    static func energy(ofLoudness lufs: Double) -> Double {
        pow(10, (lufs + 0.691) / 10)
    }
}

/// A constant-memory histogram of loudness values (gating blocks for the integrated loudness,
/// short-term values for the loudness range) that answers the gated measures of
/// ITU-R BS.1770-4 §2 and EBU Tech 3342 at any time, cheaply.
///
/// Values below the absolute gate (−70 LUFS) are never inserted. Bins are 0.01 LU wide from
/// −70 to +10 LUFS (louder values share the top bin). Unlike libebur128's histogram mode, which
/// stands each bin in for its centre, every bin keeps the exact sum of its values' energies and
/// loudnesses, so:
/// - the absolute-gated mean energy (and so the relative gate) is exact;
/// - energies above the relative gate are summed exactly; only the one bin straddling the gate
///   is decided as a whole, by its mean loudness (exact when its values are equal, as in the
///   EBU test signals);
/// - a percentile is the mean loudness of the bin holding that rank (within 0.01 LU).
///
/// Two Fenwick trees (binary indexed trees) over the bins, ordered loudest first, hold the
/// counts and energies, so a query costs O(log bins) and the live meter can ask for integrated
/// loudness and loudness range after every 100 ms step.
struct LoudnessHistogram: Sendable {
    /// Lower edge of the lowest bin: the absolute gate, LUFS.
    static let lowestLoudness = -70.0
    /// The absolute gate as an energy.
    static let absoluteGateEnergy = LoudnessScale.energy(ofLoudness: lowestLoudness)
    /// Bin width in LU.
    static let binWidth = 0.01
    /// Number of bins (−70 ... +10 LUFS).
    static let binCount = 8000

    private var counts: [Int]
    private var energySums: [Double]
    private var loudnessSums: [Double]
    /// Fenwick trees indexed by position 1...binCount, position 1 = loudest bin.
    private var countTree: [Int]
    private var energyTree: [Double]
    /// Number of values inserted (all are at or above the absolute gate).
    private(set) var totalCount = 0
    /// Sum of the energies inserted.
    private(set) var totalEnergy = 0.0

    init() {
        let n = Self.binCount
        counts = [Int](repeating: 0, count: n)
        energySums = [Double](repeating: 0, count: n)
        loudnessSums = [Double](repeating: 0, count: n)
        countTree = [Int](repeating: 0, count: n + 1)
        energyTree = [Double](repeating: 0, count: n + 1)
    }

    /// The bin of a loudness value (clamped to the histogram's range).
    @inline(__always)
    static func bin(of lufs: Double) -> Int {
        let x = ((lufs - lowestLoudness) / binWidth).rounded(.down)
        guard x.isFinite else { return x > 0 ? binCount - 1 : 0 }
        return Int(min(Double(binCount - 1), max(0, x)))
    }

    @inline(__always)
    private static func position(ofBin bin: Int) -> Int { binCount - bin }

    /// Adds one value, given as its mean square. Values below the absolute gate, and non-finite
    /// ones, are ignored.
    mutating func insert(energy e: Double) {
        guard e.isFinite, e >= Self.absoluteGateEnergy else { return }
        let lufs = LoudnessScale.loudness(ofEnergy: e)
        let b = Self.bin(of: lufs)
        counts[b] += 1
        energySums[b] += e
        loudnessSums[b] += lufs
        totalCount += 1
        totalEnergy += e
        var i = Self.position(ofBin: b)
        let n = Self.binCount
        countTree.withUnsafeMutableBufferPointer { ct in
            energyTree.withUnsafeMutableBufferPointer { et in
                while i <= n {
                    ct[i] += 1
                    et[i] += e
                    i += i & -i
                }
            }
        }
    }

    /// Count and energy of the loudest `positions` bins.
    private func prefix(_ positions: Int) -> (count: Int, energy: Double) {
        var i = min(positions, Self.binCount)
        var c = 0
        var e = 0.0
        while i > 0 {
            c += countTree[i]
            e += energyTree[i]
            i -= i & -i
        }
        return (c, e)
    }

    /// The values that pass a relative gate `offset` LU below the loudness of the mean energy of
    /// all values (BS.1770-4 §2.7 with −10 LU; Tech 3342 with −20 LU): their count, summed
    /// energy, and the number of loudest bins they occupy (the last possibly only by its mean).
    func relativeGated(offset: Double) -> (count: Int, energy: Double) {
        guard totalCount > 0 else { return (0, 0) }
        let gate = LoudnessScale.loudness(ofEnergy: totalEnergy / Double(totalCount)) + offset
        if gate < Self.lowestLoudness { return (totalCount, totalEnergy) }
        let g = Self.bin(of: gate)
        // Bins strictly above the gate's bin pass entirely.
        var (c, e) = prefix(Self.binCount - 1 - g)
        // The gate's own bin passes or not as a whole, by its mean loudness.
        if counts[g] > 0, loudnessSums[g] / Double(counts[g]) >= gate {
            c += counts[g]
            e += energySums[g]
        }
        return (c, e)
    }

    /// The loudness of the value of rank `rank` counted from the loudest (0 = loudest), as the
    /// mean loudness of the bin that holds it; `nil` if there are not that many values.
    func value(rankFromTop rank: Int) -> Double? {
        guard rank >= 0, rank < totalCount else { return nil }
        // Fenwick descent: the first position whose prefix count exceeds `rank`.
        var pos = 0
        var remaining = rank
        var step = 1
        while step * 2 <= Self.binCount { step *= 2 }
        while step > 0 {
            let next = pos + step
            if next <= Self.binCount, countTree[next] <= remaining {
                pos = next
                remaining -= countTree[next]
            }
            step /= 2
        }
        let b = Self.binCount - (pos + 1)
        guard b >= 0, counts[b] > 0 else { return nil }
        return loudnessSums[b] / Double(counts[b])
    }
}

extension LoudnessHistogram {
    /// Integrated (gated) loudness, LUFS, of a histogram of 400 ms gating blocks
    /// (ITU-R BS.1770-4 §2.7–2.8: absolute gate −70 LUFS, relative gate −10 LU);
    /// minus infinity when no block passes.
    func integratedLoudness(relativeGate: Double = -10) -> Double {
        let (c, e) = relativeGated(offset: relativeGate)
        guard c > 0 else { return -.infinity }
        return LoudnessScale.loudness(ofEnergy: e / Double(c))
    }

    /// Loudness range, LU, of a histogram of short-term (3 s) loudness values (EBU Tech 3342 §3:
    /// absolute gate −70 LUFS, relative gate −20 LU, the 95th minus the 10th percentile).
    /// Percentiles use the nearest rank `round((n − 1)·p)` among the `n` gated values, as
    /// libebur128 does. Zero when no value passes the gates.
    func loudnessRange(relativeGate: Double = -20, lowPercentile: Double = 0.10, highPercentile: Double = 0.95) -> Double {
        let n = relativeGated(offset: relativeGate).count
        guard n > 0 else { return 0 }
        // The gated values are the n loudest; rank r from the bottom is rank n−1−r from the top.
        let lowRank = Int((Double(n - 1) * lowPercentile).rounded())
        let highRank = Int((Double(n - 1) * highPercentile).rounded())
        guard let low = value(rankFromTop: n - 1 - lowRank),
            let high = value(rankFromTop: n - 1 - highRank)
        else { return 0 }
        return max(0, high - low)
    }
}
