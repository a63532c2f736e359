package selection

import (
	"context"
	"sync"
)

// eachIndex calls f(x) for every x in 0..count-1 on min(workers, count)
// goroutines (at least one), skipping the calls once ctx is done, and
// returns ctx.Err(). f must write only to slots owned by x, so that the
// result does not depend on the number of workers.
func eachIndex(ctx context.Context, workers, count int, f func(x int)) error {
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, min(workers, count)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := range next {
				if ctx.Err() == nil {
					f(x)
				}
			}
		}()
	}
	for x := 0; x < count; x++ {
		next <- x
	}
	close(next)
	wg.Wait()
	return ctx.Err()
}
