import Foundation
import Testing
@testable import MusicUnderstanding

extension BeatTracker {
    /// The Viterbi decoding state by state, as 0.8.17 ran it (the reference of
    /// ``BeatTrackerReferenceTests``): a ring of scores per period, to which every frame adds the
    /// observation at each beat state. The product's decoder keeps only each beat's entry score
    /// and sums the observation from cumulative ratios.
    func stateByStateDecode(_ activation: [Float], minPeriod: Int, maxPeriod: Int, centrePeriod: Double) -> [Int] {
        let n = activation.count
        guard let space = stateSpace(frames: n, minPeriod: minPeriod, maxPeriod: maxPeriod, centrePeriod: centrePeriod) else { return [] }
        let periods = space.periods, offsets = space.offsets, total = space.ringSize
        let fromLo = space.fromLo, columnStart = space.columnStart, columns = space.columns
        let beatWidth = space.beatWidth
        let m = periods.count
        // Ring of scores per period: state (j, φ) at frame t lives at slot (t − φ) mod τ_j.
        var score = [Double](repeating: 0, count: total)
        let obsL = settings.observationLambda
        var back = [UInt8](repeating: 0, count: n * m)
        var entry = [Double](repeating: 0, count: m)
        var ends = [Double](repeating: 0, count: m)
        // t mod τ_j: the slot of state (j, 0) at frame t.
        var phase = [Int](repeating: 0, count: m)
        score.withUnsafeMutableBufferPointer { sc in
            columns.withUnsafeBufferPointer { columnBuffer in
                back.withUnsafeMutableBufferPointer { bp in
                    for t in 0..<n {
                        if t > 0 {
                            // Scores of the last position of every period at t − 1, which sit at
                            // slot (t − 1 − (τ − 1)) mod τ = t mod τ.
                            for i in 0..<m { ends[i] = sc[offsets[i] + phase[i]] }
                            ends.withUnsafeBufferPointer { endBuffer in
                                guard let endBase = endBuffer.baseAddress, let columnBase = columnBuffer.baseAddress else { return }
                                for j in 0..<m {
                                    let (best, k) = Self.firstMaximum(
                                        of: endBase + fromLo[j], plus: columnBase + columnStart[j], count: columnStart[j + 1] - columnStart[j])
                                    entry[j] = best
                                    bp[t * m + j] = UInt8(k.map { fromLo[j] + $0 } ?? j)
                                }
                            }
                            for j in 0..<m { sc[offsets[j] + phase[j]] = entry[j] }
                        }
                        // Observation: log-likelihood ratio of beat against non-beat states, which
                        // are the 2w ring slots around the slot of position 0.
                        let a = Double(activation[t])
                        let llr = log(a * (obsL - 1) / (1 - a))
                        for j in 0..<m {
                            let tau = periods[j], w = beatWidth[j], base = offsets[j], p = phase[j]
                            for phi in 0..<w { sc[base + Self.referenceSlot(p - phi, period: tau)] += llr }
                            if w < tau {
                                for phi in max(w, tau - w)..<tau { sc[base + Self.referenceSlot(p - phi, period: tau)] += llr }
                            }
                        }
                        for j in 0..<m { phase[j] = phase[j] + 1 == periods[j] ? 0 : phase[j] + 1 }
                        // Keep the numbers small.
                        if t & 255 == 255 {
                            var mx = -Double.infinity
                            for k in 0..<total where sc[k] > mx { mx = sc[k] }
                            if mx.isFinite { for k in 0..<total { sc[k] -= mx } }
                        }
                    }
                }
            }
        }
        // Best final state.
        var bestJ = 0, bestPhi = 0, best = -Double.infinity
        for j in 0..<m {
            let tau = periods[j]
            for phi in 0..<tau {
                let v = score[offsets[j] + ((n - 1 - phi) % tau + tau) % tau]
                if v > best { best = v; bestJ = j; bestPhi = phi }
            }
        }
        return space.beats(endingIn: bestJ, position: bestPhi, frames: n, back: back)
    }

    /// `x` modulo `period`, in `0..<period`.
    static func referenceSlot(_ x: Int, period: Int) -> Int { (x % period + period) % period }
}

@Suite struct BeatTrackerReferenceTests {
    /// The decoder returns the beats of the state-by-state Viterbi decoding on random
    /// activations: several period ranges (with and without the 250-period cap), legato and
    /// impulsive priors, and beat-state windows narrower than, equal to and wider than the period
    /// (observation λ 16, 4, 1 and 0.5).
    @Test func decoderMatchesTheStateByStateViterbi() {
        var noise = Synth.Noise(state: 11)
        var compared = 0
        for (lambda, lo, hi, centre) in [(16.0, 20, 63, 40.0), (16.0, 30, 300, 61.5), (4.0, 12, 40, 25.0), (1.0, 8, 20, 13.0), (0.5, 30, 60, 40.0)] {
            var configuration = RhythmAnalyzer.Configuration()
            configuration.beats.observationLambda = lambda
            for impulsive in [Float(0), 0.5, 1] {
                // A pulse of period `centre` with jitter and spurious onsets over a noisy floor.
                var activation = (0..<3000).map { _ in Float(0.04 + 0.05 * abs(Double(noise.next()))) }
                var t = 10.0
                while t < Double(activation.count) {
                    activation[Int(t)] = Float(0.3 + 0.6 * abs(Double(noise.next())))
                    t += centre * (1 + 0.05 * Double(noise.next()))
                }
                let tracker = BeatTracker(settings: configuration.beats, impulsiveShare: impulsive)
                let fast = tracker.decode(activation, minPeriod: lo, maxPeriod: hi, centrePeriod: centre)
                let reference = tracker.stateByStateDecode(activation, minPeriod: lo, maxPeriod: hi, centrePeriod: centre)
                #expect(fast == reference, "λ \(lambda), periods \(lo)-\(hi), impulsive \(impulsive)")
                #expect(fast.count > activation.count / Int(centre) / 2)
                compared += 1
            }
        }
        #expect(compared == 15)
    }
}
