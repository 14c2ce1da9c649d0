"""Who knows what: player characters and their players, what characters learned of hidden canon and when, and
what they believe that canon may not hold. The rule deciding what a viewer sees stays in `canon.visibility`."""
