-- Webhook settings a merchant manages through the API. A merchant who only
-- takes hosted checkouts has no partner API: it may still set where webhooks go, so the
-- API columns become optional (both or neither; product lookups need both and treat a
-- row without them as "no partner"). webhook_url null: `{api_url}/webhooks/platform`;
-- webhook_events null: the spec's two outcomes.
alter table partner_endpoints
  alter column api_url drop not null,
  alter column api_secret_sealed drop not null,
  add column webhook_url text,
  add column webhook_events text[],
  add column signing_secret_created_at timestamptz,
  add constraint partner_api_whole check ((api_url is null) = (api_secret_sealed is null)),
  add constraint webhook_events_known check (
    webhook_events is null
    or (cardinality(webhook_events) > 0
        and webhook_events <@ array['payment.success', 'payment.fail', 'payment.refunded']));

-- Secrets made before this column existed have no known birth: the row's last change.
update partner_endpoints set signing_secret_created_at = updated_at
where signing_secret_sealed is not null;
