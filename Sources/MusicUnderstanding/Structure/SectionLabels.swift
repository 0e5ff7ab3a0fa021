import Foundation

/// Steps 4-5 of the structure analysis: repetition labels and section functions (see
/// ``StructureAnalyzer``).
extension StructureAnalyzer {
    /// Repetition labels (0, 1, 2, ... in order of first appearance) for the sections starting
    /// at `starts` (see the type's step 4).
    func labels(_ f: BarFeatures, starts: [Int], count n: Int, scale: Double, threshold: Double) -> [Int] {
        let bounds = starts + [n]
        var labels: [Int] = []
        var next = 0
        for b in 0..<starts.count {
            let b0 = bounds[b], lb = bounds[b + 1] - b0
            var best = Double.infinity, bestLabel = -1
            for a in 0..<b where b0 - bounds[a] <= configuration.labelWindowBars {
                let a0 = bounds[a], la = bounds[a + 1] - a0
                let m = min(la, lb)
                guard m > 0 else { continue }
                var head = 0.0, tail = 0.0
                for k in 0..<m {
                    head += Double(Self.distance(f, a0 + k, b0 + k))
                    tail += Double(Self.distance(f, a0 + la - m + k, b0 + lb - m + k))
                }
                // Unequal lengths count against the match (an 8-bar part is not a 16-bar one).
                let ratio = Double(max(la, lb)) / Double(m)
                let d = min(head, tail) / Double(m) / scale * (1 + 0.25 * (ratio - 1))
                if d < best { best = d; bestLabel = labels[a] }
            }
            if best < threshold, bestLabel >= 0 {
                labels.append(bestLabel)
            } else {
                labels.append(next)
                next += 1
            }
        }
        return labels
    }

    /// Section functions from repetition, position and energy:
    /// the most repeated label (ties: higher mean energy) is the chorus; other repeated labels
    /// are verses; the first section is the intro when its label does not recur and either it
    /// is short or quieter than the mean, the last likewise the outro; a label
    /// appearing once elsewhere is a bridge in the second half of the piece and `other` before it.
    /// A single section is `other`.
    static func functions(labels: [Int], energy: [Double], lengths: [Double]) -> [SectionFunction] {
        let n = labels.count
        guard n > 1 else { return [SectionFunction](repeating: .other, count: n) }
        var counts: [Int: Int] = [:]
        var labelEnergy: [Int: Double] = [:]
        for (l, e) in zip(labels, energy) { counts[l, default: 0] += 1; labelEnergy[l, default: 0] += e }
        for (l, c) in counts { labelEnergy[l] = (labelEnergy[l] ?? 0) / Double(c) }
        let repeated = counts.filter { $0.value > 1 }.map(\.key)
        let chorus = repeated.max { a, b in
            let ca = counts[a] ?? 0, cb = counts[b] ?? 0
            return ca != cb ? ca < cb : (labelEnergy[a] ?? 0) < (labelEnergy[b] ?? 0)
        }
        let total = lengths.reduce(0, +)
        let meanLength = total / Double(n)
        let meanEnergy = energy.reduce(0, +) / Double(max(1, energy.count))
        var out = [SectionFunction](repeating: .other, count: n)
        var elapsed = 0.0
        for s in 0..<n {
            let l = labels[s]
            let once = (counts[l] ?? 0) == 1
            let quietOrShort = lengths[s] < 0.75 * meanLength || energy[s] < meanEnergy
            if l == chorus {
                out[s] = .chorus
            } else if !once {
                out[s] = .verse
            } else if s == 0 && quietOrShort {
                out[s] = .intro
            } else if s == n - 1 && quietOrShort {
                out[s] = .outro
            } else if elapsed + 0.5 * lengths[s] > 0.5 * total {
                out[s] = .bridge
            }
            elapsed += lengths[s]
        }
        return out
    }

    /// Label 0 → "A", 25 → "Z", 26 → "AA", ...
    static func letter(_ i: Int) -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var i = max(0, i)
        var s = ""
        repeat {
            s = String(letters[i % 26]) + s
            i = i / 26 - 1
        } while i >= 0
        return s
    }
}
