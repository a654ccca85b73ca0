/* tests/test_budget.c: the work budget's rules (engine/decode/budget.h) directly: the agenda's
 * pop weight grows with its heap. Whether the searches stay exact when the budget stops them is
 * test_staggered's and test_exact's job. */
#include "budget.h"
#include "test_util.h"

TEST(pop_weight_grows_with_the_heap) {
  double last = vt_budget_pop_weight(0);
  EXPECT_EQ_DBL(last, (double)VT_W_POP, "empty heap");
  for (int64_t n = 1; n < ((int64_t)1 << 40); n *= 2) {
    const double w = vt_budget_pop_weight(n), w1 = vt_budget_pop_weight(2 * n - 1);
    const int deep = n >= ((int64_t)1 << VT_AGENDA_CACHED_LOG2);
    EXPECT_EQ_DBL(w, last + (deep ? VT_W_POP_DEEP : 0), "one more level per doubling, uncached");
    EXPECT_EQ_DBL(w1, w, "the same level up to the next power of two");
    last = w;
  }
}

TEST_MAIN(CASE(pop_weight_grows_with_the_heap))
