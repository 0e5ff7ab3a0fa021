import CFFTW
import Synchronization

/// The FFTW planner is not thread-safe; plans are made and destroyed under this lock, which
/// guards the number of live plans. (Not a `Locked<Void>`: ThreadSanitizer reports a race on a
/// zero-sized locked value, whose address aliases the lock object's other storage.)
private let plannerLock = Locked<Int>(0)

/// A real-to-complex FFT of a fixed size (FFTW, single precision), planned once and reused.
///
/// Not thread-safe: one instance per thread of work. The only type that touches FFTW.
final class RealFFT {
    /// Transform length.
    let size: Int
    /// Number of complex output bins, `size / 2 + 1`.
    var binCount: Int { size / 2 + 1 }

    private var plan: fftwf_plan?
    private var input: UnsafeMutablePointer<Float>?
    private var output: UnsafeMutablePointer<fftwf_complex>?

    /// Plans a transform of `size` points (`FFTW_ESTIMATE` unless `measure`).
    init(size: Int, measure: Bool = false) {
        self.size = size
        input = fftwf_alloc_real(size)
        output = fftwf_alloc_complex(size / 2 + 1)
        plan = plannerLock.withLock { livePlans in
            livePlans += 1
            return fftwf_plan_dft_r2c_1d(Int32(size), input, output, UInt32(measure ? FFTW_MEASURE : FFTW_ESTIMATE))
        }
    }

    deinit {
        plannerLock.withLock { livePlans in
            if let plan { fftwf_destroy_plan(plan) }
            livePlans -= 1
        }
        fftwf_free(input)
        fftwf_free(output)
    }

    /// Transforms `samples × window` (at least `size` values each) and writes the power of each
    /// bin to `power` (`binCount` values): the windowing is fused into the copy to FFTW's input.
    func powerSpectrum(
        of samples: UnsafeBufferPointer<Float>, window: UnsafeBufferPointer<Float>,
        into power: UnsafeMutableBufferPointer<Float>
    ) {
        guard let input, let output, let plan, samples.count >= size, window.count >= size, power.count >= binCount else { return }
        for i in 0..<size { input[i] = samples[i] * window[i] }
        fftwf_execute(plan)
        let raw = UnsafeMutableRawPointer(output).assumingMemoryBound(to: Float.self)
        for k in 0..<binCount {
            let re = raw[2 * k], im = raw[2 * k + 1]
            power[k] = re * re + im * im
        }
    }
}
