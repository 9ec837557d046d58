-- The next order number as the card network is sent it: the sequence's value in at least
-- ten digits (domain/tokens.ts orderNumberOf does the same in TypeScript). Called per row
-- inside an insert, it saves a batch of registrations the round trip that fetched the
-- numbers first (issue 25).
create function next_order_number() returns text
  language sql volatile
  as $$ select lpad(n::text, greatest(10, length(n::text)), '0')
        from (select nextval('order_numbers') as n) as next $$;
