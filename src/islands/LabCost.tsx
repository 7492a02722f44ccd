/**
 * The idle lab's cost box: the idle share of the last 30 s, priced at the GPU's sourced list price
 * (src/lib/lab/cost.ts), the price the fleet page uses for the same model; a model without one gets no cost.
 */
import { describePrice } from '../lib/gpu-prices.ts';
import { HOURS_PER_MONTH, type IdleCostBox } from '../lib/lab/cost.ts';

/** The cost paragraph under the idle lab's charts. */
export default function LabCost({ box }: { box: IdleCostBox }) {
  return (
    <p className="lab-cost">
      Over the last 30 s this GPU was idle but allocated {Math.round(box.share * 100)}% of the time.{' '}
      {box.price ? (
        <>
          At {describePrice(box.price)} (the price the fleet page uses for this model), a month ({HOURS_PER_MONTH} h)
          like that costs about <strong>{box.monthly}</strong> for idle time.
        </>
      ) : (
        <>
          This GPU model has no sourced list price here, so no cost is shown; the fleet page takes a price of your own.
        </>
      )}
    </p>
  );
}
