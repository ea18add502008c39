package targets

import "fmt"

// Ordering is how a phase lines its members up for its batches (extensions `order` and
// `spread`): Order an expression giving each cluster a sort key, Spread one giving the value
// batches take one member of before a second (labels.region). Both empty: child-name order.
type Ordering struct {
	Order  string `json:"order,omitempty"`
	Spread string `json:"spread,omitempty"`

	order, spread *KeyProgram
}

// IsZero reports whether the phase keeps child-name order.
func (o Ordering) IsZero() bool { return o.Order == "" && o.Spread == "" }

// Compile compiles both expressions through the cache; an error names the field.
func (o *Ordering) Compile(c *Cache) error {
	var err error
	if o.Order != "" {
		src := o.Order
		if src == Shuffle {
			src = ShuffleExpr
		}
		if o.order, err = c.CompileKey(src); err != nil {
			return fmt.Errorf("order: %w", err)
		}
	}
	if o.Spread != "" {
		if o.spread, err = c.CompileKey(o.Spread); err != nil {
			return fmt.Errorf("spread: %w", err)
		}
	}
	return nil
}

// Keys evaluates the compiled expressions for s; a key that is not set is the zero Key.
// An Ordering not compiled (or without the expression) gives the zero Key too.
func (o *Ordering) Keys(s Subject) (order, spread Key, err error) {
	if o.order != nil {
		if order, err = o.order.Eval(s); err != nil {
			return Key{}, Key{}, fmt.Errorf("order: %w", err)
		}
	}
	if o.spread != nil {
		if spread, err = o.spread.Eval(s); err != nil {
			return Key{}, Key{}, fmt.Errorf("spread: %w", err)
		}
	}
	return order, spread, nil
}

// Compiled reports whether every expression set is compiled (a plan decoded without
// compiling would otherwise fall back to name order silently).
func (o Ordering) Compiled() bool {
	return (o.Order == "") == (o.order == nil) && (o.Spread == "") == (o.spread == nil)
}
