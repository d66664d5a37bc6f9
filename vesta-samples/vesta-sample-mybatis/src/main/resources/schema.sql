create table if not exists orders (
  id bigint primary key,
  item varchar(200) not null,
  quantity int not null,
  placed_at timestamp with time zone not null
);
